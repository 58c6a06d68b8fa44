package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// The screen contract of a lesson. A narrative step (say, pause,
// chapter) may say what the screen must show while it is on screen: the
// requests, entries, members and commit indexes its caption speaks of
// (shows:). The window guarantees them (a request named is pinned in the
// clients panel with its outcome; an entry named is drawn as an entry
// with its term; a member named is drawn with its labels; a commit index
// named is written beside its member's log), and the run proves them: a
// step's shows must hold by the time the step leaves the screen, when the
// next narrative step runs or the script ends, as an expect there would.

// ShowKind is what a shows: item names. Its String is the item's key.
type ShowKind uint8

// The kinds of shows: item.
const (
	ShowInvalid ShowKind = iota
	ShowRequest          // request: label, with outcome: status
	ShowEntry            // entry: {member: ref, index: N, term: T}
	ShowMember           // member: ref, with role: and term:
	ShowCommit           // commit: {member: ref, index: N}
	ShowKey              // key: path, with value: V (null: absent) and on: refs (shows_key.go)
	ShowAlarm            // alarm: NOSPACE, with on: refs (shows_key.go)
	numShowKinds
)

var showKindNames = [...]string{"invalid", "request", "entry", "member", "commit", "key", "alarm"}

func (k ShowKind) String() string {
	if int(k) < len(showKindNames) {
		return showKindNames[k]
	}
	return fmt.Sprintf("ShowKind(%d)", k)
}

// Show is one item of a narrative step's shows:, something its caption
// names that the screen must show while the step is on screen.
type Show struct {
	Pos  Pos // where the item's key is
	Kind ShowKind
	// Label is ShowRequest's operation (its as:); Status, if set, the
	// outcome it has by then (OpInvalid: any).
	Label  string
	Status OpStatus
	// Node is the member of ShowEntry, ShowMember and ShowCommit; it must
	// resolve to one member.
	Node NodeRef
	// Index is ShowEntry's log index and ShowCommit's commit index.
	Index uint64
	// Term is ShowEntry's term, and ShowMember's (0: any).
	Term uint64
	// Role is ShowMember's role (nil: any).
	Role *sim.Role
	// Key is ShowKey's key, Value the value it has (Absent: none), on
	// the members On (none: every member that is up); ShowAlarm's alarm
	// is Key, on the members On.
	Key, Value string
	Absent     bool
	On         []NodeRef
}

// String writes the item as a transcript says it.
func (s Show) String() string {
	switch s.Kind {
	case ShowRequest:
		if s.Status != OpInvalid {
			return fmt.Sprintf("request %s (%s)", s.Label, s.Status)
		}
		return "request " + s.Label
	case ShowEntry:
		return fmt.Sprintf("%s's entry %d of term %d", s.Node, s.Index, s.Term)
	case ShowMember:
		var what []string
		if s.Role != nil {
			what = append(what, s.Role.String())
		}
		if s.Term != 0 {
			what = append(what, "term "+strconv.FormatUint(s.Term, 10))
		}
		if len(what) == 0 {
			return "member " + s.Node.String()
		}
		return fmt.Sprintf("member %s (%s)", s.Node, strings.Join(what, ", "))
	case ShowCommit:
		return fmt.Sprintf("%s's commit index %d", s.Node, s.Index)
	case ShowKey:
		return s.keyString()
	case ShowAlarm:
		return "alarm " + s.Key + s.onString()
	}
	return s.Kind.String()
}

// showKeys are the keys of a shows: item: one of the kinds, and the
// details of request: and member:.
var showKeys = []string{"request", "outcome", "entry", "member", "role", "term", "commit", "key", "value", "on", "alarm"}

// shows reads a step's shows:, a mapping or a list of them, each naming
// one thing:
//
//	shows: {request: w2, outcome: timeout}
//	shows:
//	  - {entry: {member: $old, index: 14, term: 2}}
//	  - {member: $new, role: leader, term: 3}
//	  - {commit: {member: etcd-1, index: 13}}
func (p *parser) shows(st *Step, v *yaml.Node) {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		if len(v.Content) == 0 {
			p.errorf(p.pos(v), "shows: the list names nothing; want at least one of request:, entry:, member:, commit:, key:, alarm:")
			return
		}
		items = v.Content
	}
	for _, it := range items {
		if s, ok := p.show(it); ok {
			st.Shows = append(st.Shows, s)
		}
	}
}

// show reads one shows: item.
func (p *parser) show(n *yaml.Node) (Show, bool) {
	f := p.mapping(n, "shows", showKeys)
	if f == nil {
		return Show{}, false
	}
	var s Show
	var kinds []string
	for _, x := range f {
		for k := ShowRequest; k < numShowKinds; k++ {
			if x.key == showKindNames[k] {
				s.Kind, s.Pos = k, p.pos(x.k)
				kinds = append(kinds, x.key)
			}
		}
	}
	switch len(kinds) {
	case 0:
		if len(f) == len(n.Content)/2 {
			p.errorf(p.pos(n), "shows: an item names one thing: request:, entry:, member:, commit:, key: or alarm:")
		}
		return Show{}, false
	case 1:
	default:
		p.errorf(p.pos(n), "shows: an item names one thing, but this one has %s; make each its own item of a list", strings.Join(kinds, " and "))
		return Show{}, false
	}
	// The details each kind takes beside its key.
	allowed := map[ShowKind][]string{ShowRequest: {"outcome"}, ShowMember: {"role", "term"}, ShowKey: showKeyDetails, ShowAlarm: {"on"}}[s.Kind]
	for _, x := range f {
		if x.key != s.Kind.String() && !contains(allowed, x.key) {
			p.errorf(p.pos(x.k), "shows: %s: goes with %s", x.key, map[string]string{
				"outcome": "request: (the outcome of that request)", "role": "member: (that member's role)", "term": "member: (that member's term); an entry's term goes inside entry:",
				"value": "key: (the value of that key)", "on": "key: or alarm: (the members that have it)"}[x.key])
		}
	}
	ok := true
	v := f.get(s.Kind.String())
	switch s.Kind {
	case ShowKey:
		ok = p.showKey(&s, f)
	case ShowAlarm:
		ok = p.showAlarm(&s, f)
	case ShowRequest:
		s.Label, ok = p.str(v, "shows request")
		if o := f.get("outcome"); o != nil {
			name, good := p.str(o, "shows outcome")
			if st, known := statusByName[name]; good && known {
				s.Status = st
			} else if good {
				p.errorf(p.pos(o), "shows outcome: want pending, ok, error or timeout (as op: says), found %q", name)
				ok = false
			}
		}
	case ShowMember:
		s.Node, ok = p.ref(v, "shows member")
		if r := f.get("role"); r != nil {
			name, good := p.str(r, "shows role")
			if role, known := roleByName[name]; good && known {
				s.Role = &role
			} else if good {
				p.errorf(p.pos(r), "shows role: want follower, pre-candidate, candidate, leader, learner, down or stalled, found %q", name)
				ok = false
			}
		}
		if t := f.get("term"); t != nil {
			s.Term, ok = p.positiveUint(t, "shows term")
		}
	case ShowEntry, ShowCommit:
		what := "shows " + s.Kind.String()
		keys := []string{"member", "index", "term"}
		if s.Kind == ShowCommit {
			keys = keys[:2]
		}
		g := p.mapping(v, what, keys)
		if g == nil {
			return Show{}, false
		}
		for _, k := range keys {
			x := g.get(k)
			if x == nil {
				p.errorf(p.pos(v), "%s: missing %s:", what, k)
				ok = false
				continue
			}
			var good bool
			switch k {
			case "member":
				s.Node, good = p.ref(x, what+" member")
			case "index":
				s.Index, good = p.positiveUint(x, what+" index")
			case "term":
				s.Term, good = p.positiveUint(x, what+" term")
			}
			ok = ok && good
		}
	}
	return s, ok
}

// shows checks the shows: of the narrative step on screen as it leaves
// the screen, at next (the next narrative step; nil: the end): their
// members, variables and labels must be known by then, since the run
// checks them then.
func (v *validator) shows(next *Step) {
	st := v.onScreen
	if st == nil {
		return
	}
	until := "the end of the scenario"
	if next != nil {
		until = fmt.Sprintf("the %s at line %d", next.Kind, next.Pos.Line)
	}
	for _, sh := range st.Shows {
		switch sh.Kind {
		case ShowRequest:
			if _, ok := v.labels[sh.Label]; !ok {
				v.p.errorf(sh.Pos, "shows request: no operation labelled %q (as: %s) is sent before the step leaves the screen (%s)", sh.Label, sh.Label, until)
			}
		case ShowKey, ShowAlarm:
			for _, ref := range sh.On {
				v.ref(ref, "shows on")
			}
		default:
			v.single(sh.Node, "shows "+sh.Kind.String())
		}
	}
}

// positiveUint reads a whole number >= 1.
func (p *parser) positiveUint(n *yaml.Node, what string) (uint64, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		if v, err := strconv.ParseUint(n.Value, 0, 64); err == nil && v >= 1 {
			return v, true
		}
	}
	p.wrong(n, what, "a whole number >= 1")
	return 0, false
}

// showsNode writes a step's shows: back, as one item or a list.
func showsNode(shows []Show) *yaml.Node {
	var items []*yaml.Node
	for _, s := range shows {
		m := ymap(true)
		switch s.Kind {
		case ShowRequest:
			yadd(m, "request", ystr(s.Label))
			if s.Status != OpInvalid {
				yadd(m, "outcome", yplain(s.Status.String()))
			}
		case ShowMember:
			yadd(m, "member", yref(s.Node))
			if s.Role != nil {
				yadd(m, "role", yplain(s.Role.String()))
			}
			if s.Term != 0 {
				yadd(m, "term", yplain(strconv.FormatUint(s.Term, 10)))
			}
		case ShowKey:
			s.keyNode(m)
		case ShowAlarm:
			yadd(m, "alarm", yplain(s.Key))
			s.onNode(m)
		case ShowEntry, ShowCommit:
			d := ymap(true)
			yadd(d, "member", yref(s.Node))
			yadd(d, "index", yplain(strconv.FormatUint(s.Index, 10)))
			if s.Kind == ShowEntry {
				yadd(d, "term", yplain(strconv.FormatUint(s.Term, 10)))
			}
			yadd(m, s.Kind.String(), d)
		}
		items = append(items, m)
	}
	if len(items) == 1 {
		return items[0]
	}
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// checkShows checks the shows: of the narrative step that leaves the
// screen now (the next one runs, or the script ended): each thing it names
// must be as it says. It returns the first that is not, as an
// expectation that failed.
func (r *Runner) checkShows(s *Step) *ExpectError {
	for _, sh := range s.Shows {
		if ok, observed := r.showHolds(sh); !ok {
			return &ExpectError{Pos: sh.Pos, What: "shows " + sh.String() + " (by the time the step leaves the screen)", Observed: observed, At: r.w.Now()}
		}
	}
	return nil
}

// showHolds reports whether one shows: item holds now, and if not what
// was observed.
func (r *Runner) showHolds(sh Show) (bool, string) {
	if sh.Kind == ShowKey {
		return r.keyHolds(sh)
	}
	if sh.Kind == ShowAlarm {
		return r.alarmHolds(sh)
	}
	if sh.Kind == ShowRequest {
		op := r.w.Op(sh.Label)
		if op == nil {
			return false, fmt.Sprintf("no operation %s has been sent", sh.Label)
		}
		if sh.Status != OpInvalid && opStatus(op.Status) != sh.Status {
			return false, fmt.Sprintf("%s is %s", sh.Label, opStatus(op.Status))
		}
		return true, ""
	}
	name, err := r.resolveOne(sh.Node)
	if err != nil {
		return false, err.Msg
	}
	in, ok := r.w.Info(name)
	if !ok {
		return false, name + " is not a member"
	}
	switch sh.Kind {
	case ShowMember:
		if sh.Role != nil && in.Role != *sh.Role {
			return false, fmt.Sprintf("%s is %s", name, in.Role)
		}
		if sh.Term != 0 && in.Term != sh.Term {
			return false, fmt.Sprintf("%s is in term %d", name, in.Term)
		}
	case ShowCommit:
		if in.Commit != sh.Index {
			return false, fmt.Sprintf("%s's commit index is %d", name, in.Commit)
		}
	case ShowEntry:
		terms, _ := r.w.LogTerms(name)
		var term uint64
		if sh.Index <= uint64(len(terms)) {
			term = terms[sh.Index-1]
		}
		switch {
		case term == 0:
			return false, fmt.Sprintf("%s has no entry %d in its log (first %d, last %d)", name, sh.Index, in.FirstIndex, in.LastIndex)
		case term != sh.Term:
			return false, fmt.Sprintf("%s's entry %d is of term %d", name, sh.Index, term)
		}
	}
	return true, ""
}

// Resolve resolves a node reference as a step running now would: a name,
// @leader and the others, or a variable bound by a let that has run.
func (r *Runner) Resolve(ref NodeRef) ([]string, error) { return r.resolve(ref) }

// opStatus is a sim operation's status as the format names it.
func opStatus(s sim.OpStatus) OpStatus {
	switch s {
	case sim.OpPending:
		return OpPending
	case sim.OpOK:
		return OpOK
	case sim.OpError:
		return OpError
	case sim.OpTimeout:
		return OpTimeout
	}
	return OpInvalid
}
