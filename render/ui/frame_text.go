package ui

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/dbsize"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// texts places every word of the frame that is not an overlay: the
// buttons, the panels' headings, the members' names and labels, the
// client boxes, the logs, the state machines, the client requests and
// the timeline's times. The header and the caption area are placed by
// whoever fills them (PlaceHeader, PlaceCaption).
func (f *Frame) texts(a *App) []TextItem {
	l := f.L
	var out []TextItem
	for _, b := range l.Buttons {
		s := l.Lang.T(b.Label)
		out = append(out, TextItem{S: s, Size: l.Normal, R: b.Rect.Inset(l.Px(8) - 1), Align: AlignCenter, Color: Ink, Essential: true})
	}
	out = append(out, f.headings()...)
	out = append(out, f.memberTexts()...)
	out = append(out, f.clientBoxTexts()...)
	out = append(out, f.logTexts()...)
	out = append(out, f.stateTexts()...)
	out = append(out, f.opTexts(a)...)
	out = append(out, f.timelineTexts()...)
	if l.LegendShown {
		for _, sl := range l.LegendSlots() {
			out = append(out, sl.Text)
		}
	}
	return out
}

// heading places a panel's title: its name, then a hint in a quieter
// colour that is shortened, or left out, when the panel is narrow.
func (f *Frame) heading(r Rect, name, hint string) []TextItem {
	l := f.L
	x, y := r.X+l.Px(8), r.Y+l.Px(3)
	name = l.Lang.T(name)
	w := l.Width(name, l.Normal)
	out := []TextItem{{S: name, Size: l.Normal, R: Rect{x, y, w, l.LineH()}, Color: Ink, Essential: true}}
	room := r.Right() - l.Px(8) - (x + w + l.Px(10))
	if hint != "" && room > l.Width("(…)", l.Small)*3 {
		s, cut := Fit(l.M, l.Lang.T(hint), l.Small, room)
		out = append(out, TextItem{S: s, Size: l.Small, R: Rect{x + w + l.Px(10), y + (l.LineH()-l.SmallH())/2, l.Width(s, l.Small), l.SmallH()}, Color: Muted, Cut: cut})
	}
	return out
}

func (f *Frame) headings() []TextItem {
	var out []TextItem
	out = append(out, f.heading(f.L.Logs, i18n.N("Logs"), i18n.N("one cell per entry; the number is its term"))...)
	stateHint := i18n.N("key = value; differs from the leader's: highlighted")
	if ShowsDB(f.View) {
		stateHint = i18n.N("DB SIZE, IN USE, alarms; then key = value")
	}
	out = append(out, f.heading(f.L.State, i18n.N("State machines"), stateHint)...)
	hint := i18n.N("newest first; hover for the whole line")
	for _, op := range f.View.Ops {
		if op.Kind == sim.OpWatch {
			hint = i18n.N("watches, then the newest; hover for the whole line")
			break
		}
	}
	out = append(out, f.heading(f.L.Clients, i18n.N("Client requests"), hint)...)
	return out
}

// MemberLabels returns the lines under a member: its role, its term, and
// its vote (with what else there is to say about it).
func MemberLabels(lang i18n.Lang, v sim.View, m sim.MemberView) (role, term, vote string) {
	role = lang.T(StyleOfRole(m.Role).Label)
	term = lang.F("term %d", m.Term)
	if !m.Up && m.NoData {
		term = lang.T("no data directory") // not "term 0": it has none to start from
	}
	vote = lang.T("no vote")
	if m.Vote != 0 {
		vote = lang.F("voted %s", NameOf(v, m.Vote))
	}
	switch {
	case m.Stalled && m.QueuedWhileStalled > 0:
		vote += lang.F(" · %d queued", m.QueuedWhileStalled)
	case m.ClockRate != 1 && m.ClockRate != 0:
		// The clock first: a lesson about a skewed clock speaks of it,
		// and a line too long for the labels loses its end.
		vote = lang.F("clock %g×", m.ClockRate) + " · " + vote
	case len(m.Alarms) > 0:
		// An alarm first, for the same reason (etcd's space quota).
		vote = strings.Join(m.Alarms, ", ") + " · " + vote
	}
	return role, term, vote
}

// ShowsDB reports whether the state-machine panel shows the members'
// database sizes: when a member's quota is not etcd's default (a scenario
// about the space quota) or an alarm is raised.
func ShowsDB(v sim.View) bool {
	for _, m := range v.Members {
		if m.Quota != sim.DefaultQuota && m.Quota != 0 || len(m.Alarms) > 0 {
			return true
		}
	}
	return false
}

// DBLine is what the state-machine panel says of a member's database, as
// endpoint status does: its DB SIZE and IN USE ("49 kB, 37 kB in use", to
// fit the panel beside the client requests).
func DBLine(lang i18n.Lang, m sim.MemberView) string {
	return lang.F("%s, %s in use", dbsize.HumanBytes(uint64(m.DBSize)), dbsize.HumanBytes(uint64(m.DBInUse)))
}

// NameOf returns a member's name by raft ID.
func NameOf(v sim.View, id uint64) string {
	for _, m := range v.Members {
		if m.ID == id {
			return m.Name
		}
	}
	return "node " + strconv.FormatUint(id, 10)
}

// memberTexts places each member's name inside its shape and its labels
// under it, on a plate so that messages passing under them do not hide
// them.
func (f *Frame) memberTexts() []TextItem {
	l, g := f.L, f.Ring
	var out []TextItem
	for i, m := range f.View.Members {
		p := g.Pos[i]
		st := StyleOfRole(m.Role)
		fill := st.Fill
		if st.Hollow {
			fill = Panel
		}
		nameY := p.Y - LineH(g.NameSize)/2
		if len(m.Votes) > 0 {
			nameY -= g.NodeR * 0.12 // room for the tally under the name
		}
		nw := l.Width(m.Name, g.NameSize)
		out = append(out, TextItem{S: m.Name, Size: g.NameSize, R: Rect{p.X - nw/2, nameY, nw, LineH(g.NameSize)}, Align: AlignCenter, Color: TextOn(fill), Essential: true})
		out = append(out, f.labelItems(i)...)
	}
	return out
}

// labelItems places member i's labels: its role, term and vote, each
// line on the block's one plate.
func (f *Frame) labelItems(i int) []TextItem {
	l, g := f.L, f.Ring
	role, term, vote := MemberLabels(l.Lang, f.View, f.View.Members[i])
	lab := f.Labels[i]
	lh := g.LabelLineH
	lines := []string{role, term, vote}
	if g.LabelLines == 2 {
		// Two lines: the vote after the term if it fits there.
		lines = lines[:2]
		if both := term + " · " + vote; l.Width(both, l.Small) <= lab.W {
			lines[1] = both
		}
	}
	var items []TextItem
	widest := 0.0
	for k, s := range lines {
		item := TextItem{S: s, Size: l.Small, Align: AlignCenter, Color: Ink, Essential: k < 2, Plate: Background}
		if k == 2 {
			item.S, item.Cut = Fit(l.M, s, l.Small, lab.W-2*labelMargin(l))
			item.Color = Muted
		}
		widest = math.Max(widest, l.Width(item.S, l.Small))
		items = append(items, item)
	}
	// One plate under the whole block, a margin wider than its widest
	// line: links and messages pass under it and never touch a letter
	// (plates that hugged each line let a slanting link graze the shorter
	// lines).
	w := math.Min(lab.W, widest+2*labelMargin(l))
	for k := range items {
		items[k].R = Rect{lab.X + lab.W/2 - w/2, lab.Y + float64(k)*lh, w, lh}
	}
	return items
}

// labelPlate is the plate under member i's labels.
func (f *Frame) labelPlate(i int) Rect {
	items := f.labelItems(i)
	r := items[0].R
	return union(r, items[len(items)-1].R)
}

// labelMargin is how far a member's label plate reaches past its widest
// line, on each side (the labels' width leaves this room).
func labelMargin(l Layout) float64 { return l.Px(4) }

// clientBoxTexts places the client boxes' names, their endpoint chips and
// their count of pending requests.
func (f *Frame) clientBoxTexts() []TextItem {
	l := f.L
	var out []TextItem
	lh := l.SmallH()
	for _, c := range f.Clients {
		col := Ink
		if c.Down {
			col = Grey
		}
		if len(c.Endpoints) > 0 {
			w := c.Chips[0].X - c.R.X - l.Px(6)
			s, cut := Fit(l.M, c.Name, l.Small, w)
			out = append(out, TextItem{S: s, Size: l.Small, R: Rect{c.R.X + l.Px(4), c.R.Y + (c.R.H-lh)/2, w, lh}, Color: col, Cut: cut, Essential: true})
			for k, ch := range c.Chips {
				tc := Ink
				if c.Endpoints[k] == c.Member {
					tc = White
				}
				out = append(out, TextItem{S: ChipLabel(c.Endpoints[k]), Size: l.Small, R: ch, Align: AlignCenter, Color: tc, Essential: true})
			}
		} else {
			name := c.Name
			if c.Local {
				name = l.Lang.T("client")
			}
			w := c.R.W - l.Px(4) - lh // the badge's room at the right
			s, cut := Fit(l.M, name, l.Small, w)
			out = append(out, TextItem{S: s, Size: l.Small, R: Rect{c.R.X + l.Px(2), c.R.Y + (c.R.H-lh)/2, w, lh}, Align: AlignCenter, Color: col, Cut: cut})
		}
		if c.Pending > 0 {
			n := strconv.Itoa(c.Pending)
			b := PendingBadge(c, l)
			out = append(out, TextItem{S: n, Size: l.Small, R: Rect{b.X - lh/2, b.Y - lh/2, lh, lh}, Align: AlignCenter, Color: Ink})
		}
	}
	return out
}

// LogCell is one cell of a member's log, placed.
type LogCell struct {
	R         Rect
	Index     uint64
	Term      uint64
	Committed bool
	Applied   bool
	Conflict  bool // differs from the leader's entry at this index
	Compacted bool // in a snapshot: the log starts after it
	// Named: the step on screen speaks of this entry (its shows:), and
	// the cell is framed.
	Named bool
}

// LogRow is one member's row of the logs panel.
type LogRow struct {
	Name  string
	Y     float64 // the top of its cells
	Cells []LogCell
	// Commit is the member's commit index, written in the commit column;
	// CommitAt is its cell's right edge, where the commit mark stands
	// (0: off the cells shown).
	Commit   uint64
	CommitAt float64
	// Match and Next are the leader's marks for this follower (0: none
	// on screen): the cell its log is known to match up to, and the cell
	// the leader sends from next.
	Match, Next LogCell
	// Progress is, for each view shown (LogPanel.Views), what that
	// leader knows of this member: "3 · 5 · replicate", or "leader" on
	// its own row.
	Progress []string
}

// LogPanel is the logs panel, placed: the rows, the first index shown, and
// the leaders whose view of their followers is shown, each in a column
// headed with its name (two when two members lead, the one of the higher
// term first).
type LogPanel struct {
	Rows  []LogRow
	Lo    uint64
	Cells int
	Views []string
	// ViewX is where each view's column starts; each is ViewW wide.
	ViewX []float64
	ViewW float64
	// Short says the columns leave out the state word (two views and
	// little room).
	Short bool
}

// leaders returns the members that believe they lead, the highest term
// first (the View's leader, then any other), at most two.
func leaders(v sim.View) []sim.MemberView {
	var out []sim.MemberView
	if m, ok := leaderOf(v); ok {
		out = append(out, m)
	}
	for _, m := range v.Members {
		if m.Up && m.Role == sim.RoleLeader && m.Name != v.Leader && len(out) < 2 {
			out = append(out, m)
		}
	}
	return out
}

// LogRows places the logs panel's rows: one per member, the cells of the
// latest entries that fit, coloured by term.
func (f *Frame) LogRows() (rows []LogRow, lo uint64) {
	p := f.LogPanel()
	return p.Rows, p.Lo
}

// LogPanel places the logs panel: one row per member, the cells of the
// latest entries that fit (from early enough to hold every entry the step
// on screen names), each member's commit index, and each leader's view of
// the others' progress.
func (f *Frame) LogPanel() LogPanel {
	l, g := f.L, f.L.Log
	v := f.View
	lead, haveLead := leaderOf(v)
	views := leaders(v)
	cells := g.Cells
	panel := LogPanel{ViewW: g.ProgW}
	if len(views) == 2 {
		// Two leaders: a column for each one's view; the cells give way,
		// down to two, and then the state words.
		room := float64(g.Cells)*g.CellW + g.ProgW
		switch {
		case room-2*g.ProgW >= 2*g.CellW:
			cells = int((room - 2*g.ProgW) / g.CellW)
		case room-2*g.ProgShortW >= 2*g.CellW:
			cells = int((room - 2*g.ProgShortW) / g.CellW)
			panel.ViewW, panel.Short = g.ProgShortW, true
		default:
			views = views[:1]
		}
	}
	panel.Cells = cells
	for k := range views {
		panel.Views = append(panel.Views, views[k].Name)
		panel.ViewX = append(panel.ViewX, g.Right-float64(len(views)-k)*panel.ViewW)
	}
	var hi uint64
	for _, m := range v.Members {
		hi = max(hi, m.LastIndex)
	}
	lo := uint64(1)
	if hi >= uint64(cells) {
		lo = hi - uint64(cells) + 1
	}
	named := map[[2]string]bool{}
	for _, e := range f.Named {
		if e.Index >= 1 && e.Index < lo {
			lo = e.Index // the entry the caption speaks of stays in sight
		}
		named[[2]string{e.Member, strconv.FormatUint(e.Index, 10)}] = true
	}
	panel.Lo = lo
	cellAt := func(i uint64, y float64) Rect {
		return Rect{g.CellsX + float64(i-lo)*g.CellW + 1, y, g.CellW - 2, g.CellH}
	}
	for row, m := range v.Members {
		y := g.Top + float64(row)*g.RowH
		r := LogRow{Name: m.Name, Y: y, Commit: m.Commit}
		for i := lo; i <= m.LastIndex && i < lo+uint64(cells); i++ {
			c := LogCell{R: cellAt(i, y), Index: i, Named: named[[2]string{m.Name, strconv.FormatUint(i, 10)}]}
			e, ok := entryAt(m, i)
			if !ok {
				// Below the first index: compacted into a snapshot.
				c.Compacted = true
				r.Cells = append(r.Cells, c)
				continue
			}
			c.Term, c.Committed, c.Applied = e.Term, i <= m.Commit, i <= m.Applied
			if haveLead && m.Name != lead.Name {
				if le, ok := entryAt(lead, i); ok && le.Term != e.Term {
					c.Conflict = true
				}
			}
			r.Cells = append(r.Cells, c)
		}
		if m.Commit >= lo && m.Commit < lo+uint64(cells) {
			r.CommitAt = cellAt(m.Commit, y).Right() + 1
		}
		for k, ld := range views {
			if ld.Name == m.Name {
				r.Progress = append(r.Progress, l.Lang.T("leader"))
				continue
			}
			s := ""
			for _, pr := range ld.Progress {
				if pr.Name != m.Name {
					continue
				}
				s = fmt.Sprintf("%d · %d · %s", pr.Match, pr.Next, l.Lang.T(ProgressWord(pr.State)))
				if panel.Short {
					s = fmt.Sprintf("%d · %d", pr.Match, pr.Next)
				}
				if k > 0 {
					continue // the marks are the first leader's
				}
				if pr.Match >= lo && pr.Match < lo+uint64(cells) && pr.Match > 0 {
					r.Match = LogCell{R: cellAt(pr.Match, y), Index: pr.Match}
				}
				if pr.Next >= lo && pr.Next < lo+uint64(cells) {
					r.Next = LogCell{R: cellAt(pr.Next, y), Index: pr.Next}
				}
			}
			r.Progress = append(r.Progress, s)
		}
		panel.Rows = append(panel.Rows, r)
	}
	return panel
}

// leaderOf returns the View's leader member, if any.
func leaderOf(v sim.View) (sim.MemberView, bool) {
	for _, m := range v.Members {
		if m.Name == v.Leader {
			return m, true
		}
	}
	return sim.MemberView{}, false
}

// entryAt returns a member's log entry at an index: one of its log, or
// the last entry its snapshot holds (raft keeps its term; a cluster
// started as the Raft paper's figures are, bootstrap: raft, holds its
// index 1 so).
func entryAt(m sim.MemberView, i uint64) (sim.LogEntryView, bool) {
	if i == m.SnapshotIndex && i > 0 {
		return sim.LogEntryView{Index: i, Term: m.SnapshotTerm}, true
	}
	if i < m.FirstIndex || len(m.Log) == 0 {
		return sim.LogEntryView{}, false
	}
	k := i - m.FirstIndex
	if k >= uint64(len(m.Log)) {
		return sim.LogEntryView{}, false
	}
	return m.Log[k], true
}

func (f *Frame) logTexts() []TextItem {
	l, g := f.L, f.L.Log
	panel := f.LogPanel()
	lo := panel.Lo
	var out []TextItem
	sh := l.SmallH()
	// The first header line: whose view each progress column is.
	top := g.Top - g.HeaderH
	vw := panel.ViewW - l.Px(8)
	for k, name := range panel.Views {
		s, cut := Fit(l.M, ViewHeading(l.Lang, name), l.Small, vw)
		out = append(out, TextItem{S: s, Size: l.Small, R: Rect{panel.ViewX[k] + l.Px(8), top, vw, sh}, Align: AlignEnd, Color: Muted, Cut: cut, Essential: true})
	}
	// The second: the commit column's heading, the index numbers above
	// the cells (every entry a step names, and others as often as they
	// fit), the progress columns' headings.
	top += sh
	commitX := l.Logs.X + l.Px(8) + g.NameW
	out = append(out, TextItem{S: l.Lang.T("commit"), Size: l.Small, R: Rect{commitX, top, g.CommitW - l.Px(6), sh}, Align: AlignEnd, Color: Muted})
	step := uint64(1)
	for _, st := range []uint64{1, 2, 5, 10, 20, 50, 100} {
		step = st
		if float64(st)*g.CellW >= l.Width("0000", l.Small) {
			break
		}
	}
	var numbered []Rect
	number := func(i uint64, must bool) {
		k := int(i - lo)
		s := strconv.FormatUint(i, 10)
		w := l.Width(s, l.Small)
		x := g.CellsX + float64(k)*g.CellW + g.CellW/2
		r := Rect{x - w/2, top, w, sh}
		for _, o := range numbered {
			if r.Inset(-l.Px(2)).Overlaps(o) {
				return
			}
		}
		if !must && r.X < g.CellsX-l.Px(2) {
			return
		}
		numbered = append(numbered, r)
		col := Muted
		if must {
			col = Ink
		}
		out = append(out, TextItem{S: s, Size: l.Small, R: r, Align: AlignCenter, Color: col, Essential: must})
	}
	for _, e := range f.Named {
		if e.Index >= lo && e.Index < lo+uint64(panel.Cells) {
			number(e.Index, true)
		}
	}
	for k := range panel.Cells {
		if i := lo + uint64(k); i%step == 0 || k == 0 && step == 1 {
			number(i, false)
		}
	}
	head := l.Lang.T("match · next · state")
	if panel.Short {
		head = l.Lang.T("match · next")
	}
	for _, x := range panel.ViewX {
		out = append(out, TextItem{S: head, Size: l.Small, R: Rect{x + l.Px(8), top, vw, sh}, Align: AlignEnd, Color: Muted})
	}
	for _, r := range panel.Rows {
		ty := r.Y + (g.CellH-sh)/2
		out = append(out, TextItem{S: r.Name, Size: l.Small, R: Rect{l.Logs.X + l.Px(8), ty, g.NameW - l.Px(4), sh}, Color: Ink, Essential: true})
		out = append(out, TextItem{S: strconv.FormatUint(r.Commit, 10), Size: l.Small, R: Rect{commitX, ty, g.CommitW - l.Px(6), sh}, Align: AlignEnd, Color: Ink, Essential: true})
		for k, s := range r.Progress {
			if s != "" {
				out = append(out, TextItem{S: s, Size: l.Small, R: Rect{panel.ViewX[k] + l.Px(8), ty, vw, sh}, Align: AlignEnd, Color: Ink, Essential: true})
			}
		}
		for _, c := range r.Cells {
			if c.Compacted {
				continue
			}
			s := strconv.FormatUint(c.Term, 10)
			size := l.Small
			for size > 6 && l.Width(s, size) > c.R.W-2 {
				size-- // a term of three digits or more: smaller, never cut
			}
			fill := TermColor(c.Term)
			if !c.Committed {
				fill = Pale(fill, UncommittedPale)
			}
			out = append(out, TextItem{S: s, Size: size, R: Rect{c.R.X, c.R.Y + (c.R.H-LineH(size))/2, c.R.W, LineH(size)}, Align: AlignCenter, Color: TextOn(fill), Essential: true})
		}
	}
	return out
}

// StatePiece is one piece of a member's row in the state-machine panel.
type StatePiece struct {
	S   string
	R   Rect
	Bad bool // differs from the leader's (or an alarm): highlighted
	DB  bool // the member's database size or its alarm, never left out
	// Key is the key a lesson step names (namedkeys.go), shown first and
	// never left out; Value the member's value of it, Missing: it has
	// none.
	Key, Value string
	Missing    bool
}

// StateRows places the state-machine panel: each member's keys and
// values, those that differ from the leader's highlighted.
func (f *Frame) StateRows() [][]StatePiece {
	l := f.L
	v := f.View
	lead, haveLead := leaderOf(v)
	leadKV := map[string]string{}
	for _, kv := range lead.KV {
		leadKV[string(kv.Key)] = string(kv.Value)
	}
	top := l.State.Y + l.LineH() + l.Px(4)
	rowH := l.RowH()
	nameW := l.Log.NameW
	db := ShowsDB(v)
	var rows [][]StatePiece
	for row, m := range v.Members {
		y := top + float64(row)*rowH
		if y+rowH > l.State.Bottom() {
			break
		}
		x := l.State.X + l.Px(8) + nameW
		maxX := l.State.Right() - l.Px(8)
		pieces := []StatePiece{{S: m.Name, R: Rect{l.State.X + l.Px(8), y, nameW, rowH}}}
		var items []StatePiece
		if db {
			// The database first, whole: a lesson about the space quota
			// speaks of it; the keys follow as room allows.
			items = append(items, StatePiece{S: DBLine(l.Lang, m), DB: true})
			if len(m.Alarms) > 0 {
				items = append(items, StatePiece{S: strings.Join(m.Alarms, ", "), Bad: true, DB: true})
			}
		}
		switch {
		case !m.Up && m.NoData:
			items = append(items, StatePiece{S: l.Lang.T("(lost with its disk: nothing to restart from)")})
		case !m.Up:
			items = append(items, StatePiece{S: l.Lang.T("(down: state machine lost until restart)")})
		}
		named, skip := f.namedKeyItems(m)
		for k := range named {
			lv, ok := leadKV[named[k].Key]
			named[k].Bad = haveLead && m.Name != lead.Name && (!ok && !named[k].Missing || ok && lv != named[k].Value)
		}
		items = append(items, named...)
		have := map[string]bool{}
		for _, kv := range m.KV {
			k, v := string(kv.Key), string(kv.Value)
			have[k] = true
			if skip[k] {
				continue
			}
			lv, ok := leadKV[k]
			items = append(items, StatePiece{S: k + "=" + v, Bad: haveLead && m.Name != lead.Name && (!ok || lv != v)})
		}
		if haveLead && m.Up && m.Name != lead.Name {
			for _, kv := range lead.KV {
				if !have[string(kv.Key)] && !skip[string(kv.Key)] {
					items = append(items, StatePiece{S: l.Lang.F("missing %s", kv.Key), Bad: true})
				}
			}
		}
		if len(items) == 0 {
			items = append(items, StatePiece{S: l.Lang.T("(empty)")})
		}
		ell := l.Width("…", l.Small)
		for k, it := range items {
			w := l.Width(it.S, l.Small)
			last := k == len(items)-1
			if it.Key != "" && x+w > maxX {
				// A key the step names: its path shortened in the middle,
				// never dropped.
				if maxX-x < 2*ell {
					break
				}
				it.S = fitNamed(l, it, maxX-x)
				w = l.Width(it.S, l.Small)
			} else if it.DB && x+w > maxX {
				// Too long for the row: fitted, never dropped (there is
				// room for the first: it comes right after the name).
				if maxX-x < 2*ell {
					break
				}
				it.S, _ = Fit(l.M, it.S, l.Small, maxX-x)
				w = l.Width(it.S, l.Small)
			} else if k == 0 && x+w > maxX {
				// Too long even alone: shorten the key from its start, so
				// that its end and the value stay ("…/replicas=5").
				it.S = fitKey(l, it.S, maxX-x)
				w = l.Width(it.S, l.Small)
				last = true
			}
			if !it.DB && it.Key == "" && (x+w > maxX || !last && x+w+l.Px(12)+ell > maxX) {
				if x+ell <= maxX {
					pieces = append(pieces, StatePiece{S: "…", R: Rect{x, y, ell, rowH}})
				}
				break
			}
			it.R = Rect{x, y, w, rowH}
			pieces = append(pieces, it)
			x += w + l.Px(12)
		}
		rows = append(rows, pieces)
	}
	return rows
}

// fitKey shortens a "key=value" piece to w by dropping the start of its
// key, keeping the value whole.
func fitKey(l Layout, s string, w float64) string {
	key, val, ok := strings.Cut(s, "=")
	if !ok {
		out, _ := Fit(l.M, s, l.Small, w)
		return out
	}
	r := []rune(key)
	for i := range r {
		c := "…" + string(r[i:]) + "=" + val
		if l.Width(c, l.Small) <= w {
			return c
		}
	}
	out, _ := Fit(l.M, "…="+val, l.Small, w)
	return out
}

func (f *Frame) stateTexts() []TextItem {
	l := f.L
	var out []TextItem
	for _, row := range f.StateRows() {
		for k, pc := range row {
			out = append(out, TextItem{S: pc.S, Size: l.Small, R: pc.R, Color: Ink, Essential: k == 0 || pc.DB})
		}
	}
	return out
}

// OpRow is one client request in the clients panel: its status chip and
// its line, wrapped to at most two lines (the whole line shows on hover).
type OpRow struct {
	Op     sim.Op
	Chip   Rect
	Status string
	Fill   bool // the chip is filled (the request has ended)
	Stale  bool
	Lines  []string
	Full   string // the whole line
	Cut    bool   // Lines do not hold all of Full
	Short  bool   // Lines are its short form (OpShort): the panel is too small for the whole rows of the requests the step names
	R      Rect   // the row
	// Frac is how far through its timeout a pending request is.
	Frac float64
}

// OpLine is the whole line of a client request: the request, its outcome
// and its latency (OpOutcome), then its path (the members it really
// reached).
func OpLine(lang i18n.Lang, op sim.Op, path []Hop, now sim.Time) string {
	return OpOutcome(lang, op, now) + " · " + opPath(lang, op, path)
}

// opPath is the path of a request: its client, then each member it
// reached.
func opPath(lang i18n.Lang, op sim.Op, path []Hop) string {
	p := op.Client
	if len(path) == 0 && op.Member != "" {
		path = []Hop{{Member: op.Member}}
	}
	for k, h := range path {
		if k == 0 && h.Member == op.Client && !h.Failed {
			// A member's own client: named so that it does not read as a
			// member ("etcd-2 → etcd-2 → ...").
			p = lang.F("%s's local client", op.Client)
		}
		p += " → "
		switch {
		case k > 0 && path[k-1].Forwarded && h.Dropped != "":
			// forwarded, and lost on the way: it never got there
			p += lang.F("%s (dropped: %s)", h.Member, lang.T(h.Dropped))
		case k > 0 && path[k-1].Forwarded && h.Leader:
			p += lang.F("leader %s", h.Member)
		default:
			p += h.Member
		}
		if h.Failed {
			p += " ×"
		}
	}
	return p
}

// OpOutcome is what a client request's row must never lose: the request,
// its outcome and its latency.
func OpOutcome(lang i18n.Lang, op sim.Op, now sim.Time) string {
	return opOutcome(lang, op, now, false)
}

// OpShort is a request's row in few words, for a clients panel too small
// to hold the whole rows of the requests a lesson's step names: the
// request, its key shortened to the kind and name of the object
// (/registry/leases/kube-node-lease/node-1 is leases/…/node-1), its
// value or answer, and an error's words without gRPC's wrapping (the
// "desc" of "rpc error: code = Unavailable desc = ..."; a timeout's are its chip's,
// "timed out", as a stale read's why is its chip's STALE); not its
// latency (a pending row's bar shows how long it has waited). The whole line shows on hover.
func OpShort(lang i18n.Lang, op sim.Op, now sim.Time) string {
	return opOutcome(lang, op, now, true)
}

// shortKey shortens a key of three or more parts to its second part (a
// Kubernetes key's kind) and its last (the object's name).
func shortKey(key string) string {
	parts := strings.Split(strings.TrimPrefix(key, "/"), "/")
	switch {
	case len(parts) >= 4 && parts[len(parts)-1] != "":
		return parts[1] + "/…/" + parts[len(parts)-1]
	case len(parts) == 3 && parts[2] != "":
		return parts[1] + "/" + parts[2]
	}
	return key
}

func opOutcome(lang i18n.Lang, op sim.Op, now sim.Time, short bool) string {
	key := op.Key()
	if short {
		key = shortKey(key)
	}
	what := op.Kind.String() + " " + key
	switch op.Kind {
	case sim.OpPut:
		what += "=" + op.Value()
	case sim.OpGet:
		if op.Req.Range.Serializable {
			what += lang.T(" (serializable)")
		} else {
			what += lang.T(" (linearizable)")
		}
	}
	res := ""
	switch {
	case op.Kind == sim.OpWatch:
		what, res = watchOutcome(lang, op)
	case op.Status == sim.OpOK && op.Kind == sim.OpGet && len(op.Req.Range.RangeEnd) != 0:
		res = " = " + lang.Count(len(op.KVs()), "%d key", "%d keys")
	case op.Status == sim.OpOK && op.Kind == sim.OpGet && len(op.KVs()) > 0:
		res = " = " + strconv.Quote(string(op.KVs()[0].Value))
	case op.Status == sim.OpOK && op.Kind == sim.OpGet:
		res = lang.T(" = (not found)")
	case op.Status == sim.OpTimeout && short:
		// its chip says it timed out
	case op.Status == sim.OpError && short:
		// gRPC's wrapping left out: what the server said
		e := op.Err
		if _, desc, ok := strings.Cut(e, " desc = "); ok && strings.HasPrefix(e, "rpc error: ") {
			e = desc
		}
		res = " · " + e
	case op.Status == sim.OpError || op.Status == sim.OpTimeout:
		res = " · " + op.Err
	}
	if op.Stale && !short { // a short row's chip says STALE
		res += " · " + op.StaleText(lang)
	}
	// The outcome first, the path last: a row that must be shortened loses
	// the path, which the ring shows too.
	if short { // a pending row's bar says how long it has waited
		return fmt.Sprintf("#%d %s%s", op.ID, what, res)
	}
	return fmt.Sprintf("#%d %s%s · %s", op.ID, what, res, FmtDur(op.Latency(now)))
}

// watchOutcome says what a watch asks and what it has had so far: its key
// or prefix, whether it requires a leader, whether it is still open (or
// why it was cancelled), and how many events it has delivered, with the
// revision of the last.
func watchOutcome(lang i18n.Lang, op sim.Op) (what, res string) {
	what = "watch " + op.Key()
	if server.IsPrefix(op.Req.Watch.Key, op.Req.Watch.RangeEnd) {
		what += " --prefix"
	}
	if op.RequireLeader {
		what += lang.T(" (require-leader)")
	}
	switch op.Status {
	case sim.OpOK:
		res = " · " + lang.T("watching")
	case sim.OpError, sim.OpTimeout:
		res = " · " + lang.T("cancelled: ") + op.Err
	}
	if op.Status != sim.OpPending {
		res += " · " + lang.Count(len(op.Events()), "%d event", "%d events")
		if n := len(op.Events()); n > 0 {
			res += lang.F(", last rev %d", op.Events()[n-1].Kv.ModRevision)
		}
	}
	return what, res
}

// panelOrder is the order of the clients panel's rows: first the requests
// a lesson's step names (pinned, in the order it names them: the caption
// speaks of them, so they stay in sight whatever comes after); then the
// watches (a watch lasts, and its row counts what it has received, which
// newer requests must not push out of sight), the one that changed last
// first; then the other requests, the newest first.
func panelOrder(ops []sim.Op, pinned []string) []sim.Op {
	var pins, watches, others []sim.Op
	isPinned := map[uint64]bool{}
	for _, label := range pinned {
		for _, op := range ops {
			if op.Label == label && label != "" && !isPinned[op.ID] {
				pins = append(pins, op)
				isPinned[op.ID] = true
			}
		}
	}
	for k := len(ops) - 1; k >= 0; k-- {
		if isPinned[ops[k].ID] {
			continue
		}
		if ops[k].Kind == sim.OpWatch {
			watches = append(watches, ops[k])
		} else {
			others = append(others, ops[k])
		}
	}
	// Stable: of two watches that changed at one instant, the newer first.
	slices.SortStableFunc(watches, func(a, b sim.Op) int { return cmp.Compare(watchChanged(b), watchChanged(a)) })
	return append(append(pins, watches...), others...)
}

// watchChanged is when a watch last changed: it was opened, received an
// event, or was cancelled.
func watchChanged(op sim.Op) sim.Time {
	t := op.Start
	if n := len(op.Events()); n > 0 {
		t = max(t, op.Events()[n-1].At)
	}
	if op.Status != sim.OpOK && op.Status != sim.OpPending {
		t = max(t, op.End)
	}
	return t
}

// FmtDur formats a latency.
func FmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.1fs", d.Seconds())
}

// OpRows places the clients panel's rows: the newest requests first, as
// many as fit, each wrapped to two lines (three in a narrow panel), or
// more if its outcome needs them.
func (f *Frame) OpRows(a *App) []OpRow {
	rows, _, _ := f.opPanel(a)
	return rows
}

// opPanel places the clients panel: its rows, and how many older requests
// did not fit (and where the line that says so goes). A row never loses
// its outcome: the last row shown may give up lines of its path to fit,
// and the requests older than the last row shown are counted on a line of
// their own, so that none disappears without a word.
func (f *Frame) opPanel(a *App) (rows []OpRow, older int, note Rect) {
	l := f.L
	v := f.View
	r := l.Clients
	top := r.Y + l.LineH() + l.Px(4)
	bottom := r.Bottom() - l.Px(4)
	sh := l.SmallH()
	chipW := 0.0
	for _, s := range []sim.OpStatus{sim.OpPending, sim.OpOK, sim.OpError, sim.OpTimeout} {
		chipW = math.Max(chipW, l.Width(l.Lang.T(StatusWord(s)), l.Small))
	}
	chipW = math.Max(chipW, l.Width(l.Lang.T("STALE"), l.Small)) + l.Px(12)
	textX := r.X + l.Px(8) + chipW + l.Px(8)
	textW := r.Right() - l.Px(8) - textX
	// Two lines, or three in a narrow panel; what is left over shows on
	// hover.
	most := 2
	if textW < l.Px(320) {
		most = 3
	}
	rowH := func(lines int) float64 { return float64(lines)*sh + l.Px(3) }
	// At most this many rows can fit, at one line each.
	fits := max(0, int((bottom-top)/rowH(1)))
	type wrapped struct {
		op          sim.Op
		full        string // its whole line (shown on hover)
		text        string // what the row shows: full, or its short form
		keep, lines int    // the lines that keep its outcome; that it takes
		short       string // its short form (OpShort), which keeps only its outcome
		shortKeep   int    // the lines the short form takes
	}
	order := panelOrder(v.Ops, a.pinned())
	pins := 0
	for _, label := range a.pinned() {
		for _, op := range v.Ops {
			if op.Label == label && label != "" {
				pins++
				break
			}
		}
	}
	// wrapAll wraps the rows; compact: each row in its short form
	// (OpShort), which keeps only its outcome.
	var ops []wrapped
	wrapAll := func(compact bool) {
		ops = ops[:0]
		for _, op := range order {
			if len(ops) > fits {
				break
			}
			w := wrapped{op: op, full: OpLine(l.Lang, op, a.S.OpPath(op.ID), v.Now)}
			text, outcome := w.full, OpOutcome(l.Lang, op, v.Now)
			if compact {
				text = OpShort(l.Lang, op, v.Now)
				outcome = text
			}
			all := len(Wrap(l.M, text, l.Small, textW))
			w.keep = all
			for m := 1; m < all; m++ {
				if lines, _ := wrapInto(l, text, textW, m); keepsOutcome(lines, outcome) {
					w.keep = m
					break
				}
			}
			w.lines = min(all, max(most, w.keep))
			if compact {
				w.lines = w.keep
			}
			w.text = text
			w.short = OpShort(l.Lang, op, v.Now)
			w.shortKeep = len(Wrap(l.M, w.short, l.Small, textW))
			ops = append(ops, w)
		}
	}
	wrapAll(false)
	// The most rows that fit, the last of them perhaps shortened, with a
	// line for the older ones if any are left out.
	try := func(k int) ([]OpRow, bool) {
		var out []OpRow
		left := len(v.Ops) - k
		noteH := 0.0
		if left > 0 {
			noteH = rowH(1)
		}
		y := top
		for i, w := range ops[:k] {
			n := w.lines
			if room := int((bottom - noteH - y - l.Px(3)) / sh); n > room {
				switch {
				case i < k-1:
					return nil, false
				case room >= w.keep:
					n = room
				case room >= w.shortKeep:
					// The last row's whole outcome does not fit, its short
					// form does: better the request in sight, with its
					// outcome, than counted among the older ones.
					w.text, n = w.short, w.shortKeep
				default:
					return nil, false
				}
			}
			lines, cut := wrapInto(l, w.text, textW, n)
			op := w.op
			row := OpRow{Op: op, Chip: Rect{r.X + l.Px(8), y + l.Px(1), chipW, sh}, Status: l.Lang.T(StatusWord(op.Status)),
				Fill: op.Status != sim.OpPending, Lines: lines, Full: w.full, Cut: cut || w.text != w.full, Short: w.text != w.full, R: Rect{r.X, y, r.W, rowH(len(lines))}}
			if op.Stale {
				row.Status, row.Stale = l.Lang.T("STALE"), true
			}
			if op.Status == sim.OpPending {
				row.Frac = math.Min(1, float64(op.Latency(v.Now))/float64(sim.DefaultClientTimeout))
			}
			out = append(out, row)
			y += row.R.H
		}
		return out, y+noteH <= bottom+1e-9
	}
	best := func() {
		rows, older = nil, len(v.Ops)
		for k := len(ops); k >= 0; k-- {
			if out, ok := try(k); ok {
				rows, older = out, len(v.Ops)-k
				break
			}
		}
	}
	best()
	// The requests the step names must all be in sight: if their whole
	// rows do not fit, every row takes its short form (the key shortened
	// to its kind and name, a timeout's error left to its chip, no path).
	if len(rows) < pins {
		wrapAll(true)
		best()
	}
	if older > 0 {
		y := top
		if len(rows) > 0 {
			y = rows[len(rows)-1].R.Bottom()
		}
		// Under the rows, the whole width of the panel: a narrow panel's
		// text column is too narrow for it.
		note = Rect{r.X + l.Px(8), y, r.W - l.Px(16), sh}
	}
	return rows, older, note
}

// wrapInto wraps s to lines of width w, at most n of them: what does not
// fit is cut from the last one (cut says so).
func wrapInto(l Layout, s string, w float64, n int) (lines []string, cut bool) {
	lines = Wrap(l.M, s, l.Small, w)
	if len(lines) <= n {
		return lines, false
	}
	rest := lines[n-1]
	for _, ln := range lines[n:] {
		rest += " " + ln
	}
	lines[n-1], cut = Fit(l.M, rest, l.Small, w)
	return lines[:n], cut
}

// keepsOutcome reports whether lines hold the whole outcome (wrapping
// may have broken it anywhere, at a space or after a "/").
func keepsOutcome(lines []string, outcome string) bool {
	joined := strings.ReplaceAll(strings.TrimSuffix(strings.Join(lines, ""), "…"), " ", "")
	return strings.HasPrefix(joined, strings.ReplaceAll(outcome, " ", ""))
}

func (f *Frame) opTexts(a *App) []TextItem {
	l := f.L
	sh := l.SmallH()
	var out []TextItem
	rows, older, note := f.opPanel(a)
	if len(rows) == 0 && len(f.View.Ops) == 0 {
		r := l.Clients
		y := r.Y + l.LineH() + l.Px(4)
		for _, ln := range Wrap(l.M, l.Lang.T("No requests yet: click an apiserver box or a member, then put or get (p, g)."), l.Small, r.W-l.Px(16)) {
			if y+sh > r.Bottom() {
				break
			}
			out = append(out, TextItem{S: ln, Size: l.Small, R: Rect{r.X + l.Px(8), y, l.Width(ln, l.Small), sh}, Color: Muted})
			y += sh
		}
	}
	for _, row := range rows {
		c := OpStatusColor(row.Op.Status)
		if row.Stale {
			c = StaleColor
		}
		tc := Ink
		if row.Fill {
			tc = TextOn(c)
		}
		out = append(out, TextItem{S: row.Status, Size: l.Small, R: row.Chip, Align: AlignCenter, Color: tc, Essential: true})
		x := row.Chip.Right() + l.Px(8)
		for k, ln := range row.Lines {
			out = append(out, TextItem{S: ln, Size: l.Small, R: Rect{x, row.R.Y + float64(k)*sh, l.Width(ln, l.Small), sh}, Color: Ink, Cut: row.Cut && k == len(row.Lines)-1})
		}
	}
	if older > 0 {
		s, cut := Fit(l.M, l.Lang.Count(older, "+%d older request", "+%d older requests"), l.Small, note.W)
		out = append(out, TextItem{S: s, Size: l.Small, R: Rect{note.X, note.Y, l.Width(s, l.Small), note.H}, Color: Muted, Cut: cut})
	}
	return out
}

// timelineTexts places the times under the timeline's track.
func (f *Frame) timelineTexts() []TextItem {
	l := f.L
	tr := f.Track
	var out []TextItem
	y := tr.Bottom() + l.Px(2)
	sh := l.SmallH()
	label := func(t sim.Time) string {
		return strconv.FormatFloat(time.Duration(t).Seconds(), 'f', -1, 64) + "s"
	}
	widest := l.Width(label(f.Span), l.Small)
	step := TickStep(f.Span, tr.W/(widest+l.Px(24)))
	for t := sim.Time(0); t <= f.Span; t += step {
		s := label(t)
		w := l.Width(s, l.Small)
		x := XAtTime(tr, f.Span, t) - w/2
		if t == 0 {
			x = tr.X
		}
		x = math.Min(x, l.Timeline.Right()-w-l.Px(2))
		out = append(out, TextItem{S: s, Size: l.Small, R: Rect{x, y, w, sh}, Color: Muted, Essential: true})
	}
	return out
}

// TextOn returns the text colour that reads on a fill.
func TextOn(fill color.RGBA) color.RGBA {
	if IsDark(fill) {
		return White
	}
	return Ink
}

// Pale mixes c with white: k = 0 is c, 1 is white.
func Pale(c color.RGBA, k float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + (255-float64(v))*k) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// PendingBadge returns where the count of a client's pending requests is
// drawn: a disc at the right end of its box.
func PendingBadge(c ClientBox, l Layout) Point {
	lh := l.SmallH()
	if len(c.Chips) > 0 {
		return Point{c.R.Right(), c.R.Y}
	}
	return Point{c.R.Right() - lh/2 - l.Px(1), c.R.Y + c.R.H/2}
}
