package scenarios

import (
	"reflect"
	"testing"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// TestMarshalScenarioRoundTrip writes every lesson and every example of
// docs/scenarios.md with MarshalScenario and parses the result back: the
// scenario must be the same, positions aside.
func TestMarshalScenarioRoundTrip(t *testing.T) {
	var all []*Scenario
	lessons, err := Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lessons {
		s, err := LoadLesson(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	for _, b := range docBlocks(t) {
		src := b.text
		switch b.info {
		case "steps":
			src = "name: doc-example\nsteps:\n" + src
		case "error":
			continue
		}
		if s, err := Parse("doc.yaml", []byte(src)); err == nil {
			all = append(all, s)
		}
	}
	bugged, err := Parse("bugs.yaml", []byte("name: bugged\nbugs: [forget-vote, stale-local-read]\nsteps:\n- wait: 1s\n"))
	if err != nil {
		t.Fatal(err)
	}
	all = append(all, bugged)
	if len(all) < 20 {
		t.Fatalf("only %d scenarios to write", len(all))
	}
	for _, s := range all {
		data, err := MarshalScenario(s)
		if err != nil {
			t.Errorf("%s (%s): %v", s.Name, s.File, err)
			continue
		}
		back, err := Parse(s.File, data)
		if err != nil {
			t.Errorf("%s (%s): the written scenario does not parse: %v\n%s", s.Name, s.File, err, data)
			continue
		}
		want, got := withoutPositions(s), withoutPositions(back)
		if !reflect.DeepEqual(want, got) {
			for i := range min(len(want.Steps), len(got.Steps)) {
				if !reflect.DeepEqual(want.Steps[i], got.Steps[i]) {
					t.Errorf("%s (%s): step %d differs:\nwant %+v\n got %+v", s.Name, s.File, i+1, want.Steps[i], got.Steps[i])
					break
				}
			}
			if !reflect.DeepEqual(want.Config, got.Config) {
				t.Errorf("%s (%s): config differs:\nwant %#v\n got %#v", s.Name, s.File, want.Config, got.Config)
			}
			t.Errorf("%s (%s): the scenario changed when written and read back:\n%s", s.Name, s.File, data)
		}
	}
	if !reflect.DeepEqual(bugged.Config.Bugs, []sim.Bug{sim.BugForgetVote, sim.BugStaleLocalRead}) {
		t.Errorf("bugs: read %v", bugged.Config.Bugs)
	}
}

// withoutPositions returns a copy of s with every Pos zeroed, so that a
// scenario read from another file compares equal.
func withoutPositions(s *Scenario) *Scenario {
	c := *s
	c.File, c.ConfigPos = "", nil
	// MarshalScenario writes one run: a compare lesson's first pane, an
	// alias's own; which lesson it came from is not part of it.
	c.Panes, c.AliasOf = nil, ""
	// The same configuration may be read as an empty list or none, and a
	// zero ratio as 0/0 or 0/100.
	if len(c.Config.Learners) == 0 {
		c.Config.Learners = nil
	}
	for _, r := range []*netmodel.Ratio{&c.Config.Network.Loss, &c.Config.Network.Duplicate} {
		if r.IsZero() {
			*r = netmodel.Ratio{}
		}
	}
	v := reflect.ValueOf(&c).Elem()
	c.Steps = append([]Step(nil), s.Steps...)
	zeroPos(v.FieldByName("Steps"))
	return &c
}

var posType = reflect.TypeFor[Pos]()

// zeroPos zeroes every Pos reachable from v through structs, slices and
// pointers, copying slices first so that the original is left alone.
func zeroPos(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == posType {
			v.Set(reflect.Zero(posType))
			return
		}
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() {
				zeroPos(f)
			} else if v.Type().Field(i).Type == posType {
				// an unexported Pos (atPos): set through an addressable copy
				reflect.NewAt(posType, f.Addr().UnsafePointer()).Elem().Set(reflect.Zero(posType))
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(cp, v)
		v.Set(cp)
		for i := range v.Len() {
			zeroPos(v.Index(i))
		}
	case reflect.Pointer:
		if !v.IsNil() && v.Elem().Kind() == reflect.Struct {
			cp := reflect.New(v.Elem().Type())
			cp.Elem().Set(v.Elem())
			v.Set(cp)
			zeroPos(cp.Elem())
		}
	}
}
