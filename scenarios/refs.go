package scenarios

import (
	"fmt"
	"slices"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// resolve turns a reference into the member (or client) names it means
// now. A reference that means nobody is an error the caller reports at the
// reference's position.
func (r *Runner) resolve(ref NodeRef) ([]string, error) {
	switch ref.Kind {
	case RefName, RefClient:
		return []string{ref.Name}, nil
	case RefVar:
		names, ok := r.vars[ref.Name]
		if !ok {
			return nil, fmt.Errorf("$%s is not bound", ref.Name)
		}
		return names, nil
	case RefLeader:
		if lead, ok := r.w.Leader(); ok {
			return []string{lead}, nil
		}
		return nil, fmt.Errorf("@leader resolves to nothing: there is no leader")
	case RefFollower, RefFollowerN, RefFollowers:
		var inOrder []string
		for _, in := range r.w.Infos() {
			// A follower is an up voter: a member added but not yet
			// joined is in no configuration, and is not one.
			if in.Role == sim.RoleFollower && in.Voter {
				inOrder = append(inOrder, in.Name)
			}
		}
		byName := slices.Sorted(slices.Values(inOrder))
		switch ref.Kind {
		case RefFollower:
			if len(inOrder) == 0 {
				return nil, fmt.Errorf("@follower resolves to nothing: no member is a follower")
			}
			return inOrder[:1], nil
		case RefFollowerN:
			if ref.N < 1 || ref.N > len(byName) {
				return nil, fmt.Errorf("@follower%d resolves to nothing: %s", ref.N, i18n.En.Count(len(byName), "%d follower", "%d followers"))
			}
			return byName[ref.N-1 : ref.N], nil
		default:
			if len(byName) == 0 {
				return nil, fmt.Errorf("@followers resolves to nothing: no member is a follower")
			}
			return byName, nil
		}
	}
	return nil, fmt.Errorf("bad reference %s", ref)
}

// resolveAll resolves every reference and concatenates the names, in order,
// without repeats.
func (r *Runner) resolveAll(refs []NodeRef) ([]string, *Error) {
	var out []string
	for _, ref := range refs {
		names, err := r.resolve(ref)
		if err != nil {
			return nil, &Error{Pos: ref.Pos, Msg: err.Error()}
		}
		for _, n := range names {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// resolveOne resolves a reference that must mean exactly one node.
func (r *Runner) resolveOne(ref NodeRef) (string, *Error) {
	names, err := r.resolveAll([]NodeRef{ref})
	if err != nil {
		return "", err
	}
	if len(names) != 1 {
		return "", &Error{Pos: ref.Pos, Msg: fmt.Sprintf("%s means %d nodes %v; this needs exactly one", ref, len(names), names)}
	}
	return names[0], nil
}
