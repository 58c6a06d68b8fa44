package ui

import (
	"slices"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// NamedKey is a key of the state machines a lesson's step names (its
// shows: key:), with the value its caption speaks of (Absent: none), on
// the members On (none: every member).
type NamedKey struct {
	Key, Value string
	Absent     bool
	On         []string
}

// For reports whether the key is named on member name.
func (k NamedKey) For(name string) bool { return len(k.On) == 0 || slices.Contains(k.On, name) }

// namedKeys returns the keys the lesson's step on screen names.
func (a *App) namedKeys() []NamedKey {
	if a.Lesson == nil {
		return nil
	}
	var out []NamedKey
	for _, s := range a.Lesson.Shows() {
		if s.Kind == scenarios.ShowKey {
			out = append(out, NamedKey{Key: s.Key, Value: s.Value, Absent: s.Absent, On: s.On})
		}
	}
	return out
}

// namedKeyItems returns the pieces member m's state-machine row starts
// with: each key the step names there, as the member has it (its value,
// or "missing KEY"), and the keys they are, which the row then leaves out.
func (f *Frame) namedKeyItems(m sim.MemberView) (items []StatePiece, named map[string]bool) {
	named = map[string]bool{}
	for _, k := range f.NamedKeys {
		if !k.For(m.Name) || named[k.Key] || !m.Up {
			continue
		}
		named[k.Key] = true
		it := StatePiece{Key: k.Key}
		for _, kv := range m.KV {
			if string(kv.Key) == k.Key {
				it.S, it.Value = k.Key+"="+string(kv.Value), string(kv.Value)
			}
		}
		if it.S == "" {
			it.S, it.Missing = f.L.Lang.F("missing %s", k.Key), true
		}
		items = append(items, it)
	}
	return items, named
}

// fitNamed fits a named key's piece to w: its path shortened in the
// middle, whole segments at a time (/registry/…/default/web), never cut
// from the left; the value always whole.
func fitNamed(l Layout, it StatePiece, w float64) string {
	for _, p := range ShortPaths(it.Key) {
		s := p + "=" + it.Value
		if it.Missing {
			s = l.Lang.F("missing %s", p)
		}
		if l.Width(s, l.Small) <= w {
			return s
		}
	}
	out, _ := Fit(l.M, it.S, l.Small, w)
	return out
}

// ShortPaths returns a key path and its shorter forms, longest first: the
// whole path, then with segments after the first dropped from the middle
// (/registry/…/default/web, /registry/…/web), then …/web.
func ShortPaths(key string) []string {
	out := []string{key}
	seg := strings.Split(strings.TrimPrefix(key, "/"), "/")
	if len(seg) < 2 {
		return out
	}
	// Keep the first segment and the last n.
	for n := len(seg) - 2; n >= 1; n-- {
		out = append(out, "/"+seg[0]+"/…/"+strings.Join(seg[len(seg)-n:], "/"))
	}
	return append(out, "…/"+seg[len(seg)-1])
}
