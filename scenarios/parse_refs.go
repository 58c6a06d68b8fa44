package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxFollowerN bounds @followerN; no cluster has that many followers.
const maxFollowerN = maxMembers

// parseRef reads the text of a node reference. The result has no Pos.
func parseRef(s string) (NodeRef, error) {
	switch {
	case s == "@leader":
		return NodeRef{Kind: RefLeader}, nil
	case s == "@follower":
		return NodeRef{Kind: RefFollower}, nil
	case s == "@followers":
		return NodeRef{Kind: RefFollowers}, nil
	case strings.HasPrefix(s, "@follower"):
		digits := strings.TrimPrefix(s, "@follower")
		n, err := strconv.Atoi(digits)
		if err != nil || n < 1 || n > maxFollowerN || digits[0] == '0' || digits[0] == '+' {
			return NodeRef{}, fmt.Errorf("bad node reference %q: want @followerN with N from 1 to %d, like @follower2", s, maxFollowerN)
		}
		return NodeRef{Kind: RefFollowerN, N: n}, nil
	case strings.HasPrefix(s, "@"):
		return NodeRef{}, fmt.Errorf("bad node reference %q: want @leader, @follower, @followerN or @followers", s)
	case strings.HasPrefix(s, "$"):
		name := s[1:]
		if !identRE.MatchString(name) {
			return NodeRef{}, fmt.Errorf("bad variable %q: want $ and a name of letters, digits, _ and -, like $old", s)
		}
		return NodeRef{Kind: RefVar, Name: name}, nil
	case nameRE.MatchString(s):
		return NodeRef{Kind: RefName, Name: s}, nil
	}
	return NodeRef{}, fmt.Errorf("bad node reference %q: want a member name (lower-case letters, digits, dashes), @leader, @follower, @followerN, @followers or $name", s)
}

// ref reads one node reference.
func (p *parser) ref(n *yaml.Node, what string) (NodeRef, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, `a node reference (a member name, "@leader", "@follower", "@followerN", "@followers" or $name)`)
		return NodeRef{}, false
	}
	r, err := parseRef(n.Value)
	if err != nil {
		p.errorf(p.pos(n), "%s: %v", what, err)
		return NodeRef{}, false
	}
	r.Pos = p.pos(n)
	return r, true
}

// refs reads a reference or a list of them. The list may not be empty.
// Bad entries are reported and left out.
func (p *parser) refs(n *yaml.Node, what string) ([]NodeRef, bool) {
	if n.Kind != yaml.SequenceNode {
		r, ok := p.ref(n, what)
		if !ok {
			return nil, false
		}
		return []NodeRef{r}, true
	}
	if len(n.Content) == 0 {
		p.errorf(p.pos(n), "%s: the list names no node; want at least one reference", what)
		return nil, false
	}
	return p.refList(n, what)
}

// refList reads a list of references, which may be empty.
func (p *parser) refList(n *yaml.Node, what string) ([]NodeRef, bool) {
	items, ok := p.list(n, what, "a list of node references")
	if !ok {
		return nil, false
	}
	out := []NodeRef{}
	for _, it := range items {
		r, good := p.ref(it, what)
		if !good {
			ok = false
			continue
		}
		out = append(out, r)
	}
	return out, ok
}
