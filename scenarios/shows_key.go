package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A shows: item may name a key of the state machines, with the value a
// caption speaks of, on the members it speaks of:
//
//	shows: {key: /registry/deployments/default/web, value: replicas-3, on: [etcd-1]}
//	shows: {key: /registry/secrets/default/db-password, value: null}
//
// value: null says the key is absent. Without on:, every member that is
// up. The window keeps the key's row in sight in the state-machine panel
// (first in each member's row, its path shortened in the middle, never
// cut from the left), and the run proves the value on each member by the
// time the step leaves the screen.

// showKeyDetails are the details a key: item takes beside it.
var showKeyDetails = []string{"value", "on"}

// showKey reads the details of a key: item (f holds the item's fields).
func (p *parser) showKey(s *Show, f fields) bool {
	ok := true
	s.Key, ok = p.str(f.get("key"), "shows key")
	if ok && !strings.HasPrefix(s.Key, "/") {
		p.errorf(p.pos(f.get("key")), "shows key: want a key path starting with /, found %q", s.Key)
		ok = false
	}
	v := f.get("value")
	switch {
	case v == nil:
		p.errorf(p.pos(f.get("key")), "shows key: missing value: (the value the caption speaks of, or null: the key is absent)")
		ok = false
	case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
		s.Absent = true
	default:
		var good bool
		s.Value, good = p.str(v, "shows value")
		ok = ok && good
	}
	if on := f.get("on"); on != nil {
		refs, good := p.refs(on, "shows on")
		s.On, ok = refs, ok && good
	}
	return ok
}

// keyString writes a key: item as a transcript says it.
func (s Show) keyString() string {
	if s.Absent {
		return fmt.Sprintf("key %s absent", s.Key) + s.onString()
	}
	return fmt.Sprintf("key %s = %s", s.Key, s.Value) + s.onString()
}

// keyHolds reports whether a key: item holds now.
func (r *Runner) keyHolds(sh Show) (bool, string) {
	names, observed := r.showsOn(sh)
	if observed != "" {
		return false, observed
	}
	for _, name := range names {
		v, ok := r.w.KVGet(name, sh.Key)
		switch {
		case sh.Absent && ok:
			return false, fmt.Sprintf("%s has %s = %s", name, sh.Key, v)
		case !sh.Absent && !ok:
			return false, fmt.Sprintf("%s has no key %s", name, sh.Key)
		case !sh.Absent && v != sh.Value:
			return false, fmt.Sprintf("%s has %s = %s", name, sh.Key, v)
		}
	}
	return true, ""
}

// keyNode writes a key: item back.
func (s Show) keyNode(m *yaml.Node) {
	yadd(m, "key", ystr(s.Key))
	if s.Absent {
		yadd(m, "value", yplain("null"))
	} else {
		yadd(m, "value", ystr(s.Value))
	}
	s.onNode(m)
}

// A shows: item may name an alarm the caption speaks of, on the members
// it speaks of (none: every member that is up):
//
//	shows: {alarm: NOSPACE, on: [etcd-1]}
//
// The window writes a member's alarms first in its row of the
// state-machine panel (and on its labels); the run proves each member has
// it raised by the time the step leaves the screen.

// showAlarm reads the details of an alarm: item.
func (p *parser) showAlarm(s *Show, f fields) bool {
	name, ok := p.str(f.get("alarm"), "shows alarm")
	if ok && name != "NOSPACE" && name != "CORRUPT" {
		p.errorf(p.pos(f.get("alarm")), "shows alarm: want NOSPACE or CORRUPT (etcd's alarms), found %q", name)
		ok = false
	}
	s.Key = name
	if on := f.get("on"); on != nil {
		refs, good := p.refs(on, "shows on")
		s.On, ok = refs, ok && good
	}
	return ok
}

// alarmHolds reports whether an alarm: item holds now.
func (r *Runner) alarmHolds(sh Show) (bool, string) {
	names, observed := r.showsOn(sh)
	if observed != "" {
		return false, observed
	}
	for _, name := range names {
		if !slices.Contains(r.w.Alarms(name), sh.Key) {
			return false, fmt.Sprintf("%s has alarms %v", name, r.w.Alarms(name))
		}
	}
	return true, ""
}

// showsOn returns the members an item's on: stands for now (none: every
// member that is up).
func (r *Runner) showsOn(sh Show) ([]string, string) {
	var names []string
	if len(sh.On) == 0 {
		for _, in := range r.w.Infos() {
			if in.Up {
				names = append(names, in.Name)
			}
		}
	}
	for _, ref := range sh.On {
		got, err := r.resolve(ref)
		if err != nil {
			return nil, err.Error()
		}
		names = append(names, got...)
	}
	return names, ""
}

// onString writes an item's on: as a transcript says it.
func (s Show) onString() string {
	if len(s.On) == 0 {
		return ""
	}
	var on []string
	for _, r := range s.On {
		on = append(on, r.String())
	}
	return " on " + strings.Join(on, ", ")
}

// onNode writes an item's on: back.
func (s Show) onNode(m *yaml.Node) {
	switch len(s.On) {
	case 0:
	case 1:
		yadd(m, "on", yref(s.On[0]))
	default:
		l := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, r := range s.On {
			l.Content = append(l.Content, yref(r))
		}
		yadd(m, "on", l)
	}
}
