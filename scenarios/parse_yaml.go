package scenarios

import (
	"encoding/base64"
	"math"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/netmodel"
)

// This file reads typed values out of YAML nodes. Each helper reports its
// own error at the node and says whether it succeeded, so that callers can
// go on and find the next error.

func (p *parser) pos(n *yaml.Node) Pos {
	if at, ok := p.flagPos[n]; ok {
		return at // a node of a --compare flag
	}
	return Pos{File: p.file, Line: n.Line, Col: n.Column}
}

// found describes a node for "found ..." in messages.
func found(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias (*" + n.Value + "); YAML aliases are not supported in scenarios, write the value out"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return n.Value
		case "!!int", "!!float":
			return n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "nothing"
}

func (p *parser) wrong(n *yaml.Node, what, want string) {
	p.errorf(p.pos(n), "%s: want %s, found %s", what, want, found(n))
}

// field is one key: value pair of a mapping.
type field struct {
	key string
	k   *yaml.Node
	v   *yaml.Node
}

// fields are a mapping's pairs in file order.
type fields []field

func (f fields) get(key string) *yaml.Node {
	for _, x := range f {
		if x.key == key {
			return x.v
		}
	}
	return nil
}

func (f fields) keyNode(key string) *yaml.Node {
	for _, x := range f {
		if x.key == key {
			return x.k
		}
	}
	return nil
}

// mapping reads a mapping whose keys must be among allowed (any key if
// allowed is nil). Unknown and duplicate keys are reported and left out. It
// returns nil, having reported why, when n is not a mapping.
func (p *parser) mapping(n *yaml.Node, what string, allowed []string) fields {
	if n.Kind != yaml.MappingNode {
		p.wrong(n, what, "a mapping")
		return nil
	}
	f := fields{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.wrong(k, what, "a plain key")
			continue
		}
		if allowed != nil && !contains(allowed, k.Value) {
			p.errorf(p.pos(k), "unknown key %q in %s (want one of: %s)", k.Value, what, strings.Join(allowed, ", "))
			continue
		}
		if prev := f.keyNode(k.Value); prev != nil {
			p.errorf(p.pos(k), "duplicate key %q in %s (first at line %d)", k.Value, what, prev.Line)
			continue
		}
		f = append(f, field{key: k.Value, k: k, v: v})
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a scalar as text. Numbers and booleans are taken as written
// ("value: 5" writes "5"); null is refused.
func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, "a string")
		return "", false
	}
	if n.ShortTag() == "!!binary" {
		// Bytes that are not UTF-8, as the writer writes them (ystr).
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			p.errorf(p.pos(n), "%s: bad !!binary (base64): %v", what, err)
			return "", false
		}
		return string(b), true
	}
	return n.Value, true
}

// nullableStr reads a string or null (nil).
func (p *parser) nullableStr(n *yaml.Node, what string) (*string, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, true
	}
	if n.Kind != yaml.ScalarNode {
		p.wrong(n, what, "a string or null")
		return nil, false
	}
	v := n.Value
	return &v, true
}

// text reads a caption: a string, or {en: ..., zh: ...}.
func (p *parser) text(n *yaml.Node, what string) (Text, bool) {
	if n.Kind == yaml.MappingNode {
		f := p.mapping(n, what, []string{"en", "zh"})
		var t Text
		ok := true
		if v := f.get("en"); v != nil {
			s, good := p.str(v, what+".en")
			t.En, ok = s, ok && good
		}
		if v := f.get("zh"); v != nil {
			s, good := p.str(v, what+".zh")
			t.Zh, ok = s, ok && good
		}
		if ok && t.IsZero() {
			p.errorf(p.pos(n), "%s: want some text in en: or zh:", what)
			return t, false
		}
		return t, ok
	}
	s, ok := p.str(n, what)
	if !ok {
		return Text{}, false
	}
	return Text{En: s}, true
}

func (p *parser) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		switch strings.ToLower(n.Value) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	p.wrong(n, what, "true or false")
	return false, false
}

// integer reads an integer in [lo, hi].
func (p *parser) integer(n *yaml.Node, what string, lo, hi int64) (int64, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		v, err := strconv.ParseInt(n.Value, 0, 64)
		if err == nil && v >= lo && v <= hi {
			return v, true
		}
	}
	// NB: the largest allowed is named whenever there is one: a value
	// past it is not "below lo" (a lease TTL of 10^18 was told "want >= 1").
	if hi == math.MaxInt64 {
		p.wrong(n, what, "a whole number >= "+strconv.FormatInt(lo, 10))
	} else {
		p.wrong(n, what, "a whole number from "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
	}
	return 0, false
}

// uint reads a non-negative 64-bit integer.
func (p *parser) uint(n *yaml.Node, what string) (uint64, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		if v, err := strconv.ParseUint(n.Value, 0, 64); err == nil {
			return v, true
		}
	}
	p.wrong(n, what, "a whole number >= 0")
	return 0, false
}

// duration reads a non-negative duration of at most MaxDuration.
func (p *parser) duration(n *yaml.Node, what string) (time.Duration, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, "a duration like 500ms or 2s")
		return 0, false
	}
	d, err := ParseDuration(n.Value, what)
	if err != nil {
		p.errorf(p.pos(n), "%v", err)
		return 0, false
	}
	return d, true
}

// positive reads a duration that must be more than zero.
func (p *parser) positive(n *yaml.Node, what string) (time.Duration, bool) {
	d, ok := p.duration(n, what)
	if ok && d == 0 {
		p.errorf(p.pos(n), "%s: want a duration above zero, found %s", what, n.Value)
		return 0, false
	}
	return d, ok
}

func (p *parser) ratio(n *yaml.Node, what string) (netmodel.Ratio, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, `a percentage like 5% or a fraction like 1/100`)
		return netmodel.Ratio{}, false
	}
	r, err := netmodel.ParseRatio(n.Value)
	if err != nil {
		p.errorf(p.pos(n), "%s: %v", what, err)
		return netmodel.Ratio{}, false
	}
	return r, true
}

func (p *parser) latency(n *yaml.Node, what string) (netmodel.Latency, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, "a latency like 10ms or 5ms-15ms")
		return netmodel.Latency{}, false
	}
	l, err := ParseLatency(n.Value, what)
	if err != nil {
		p.errorf(p.pos(n), "%v", err)
		return netmodel.Latency{}, false
	}
	return l, true
}

func (p *parser) size(n *yaml.Node, what string) (uint64, bool) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.wrong(n, what, "a size like 1MiB, 512KiB or 65536")
		return 0, false
	}
	v, err := parseSize(n.Value)
	if err != nil {
		p.errorf(p.pos(n), "%s: %v", what, err)
		return 0, false
	}
	return v, true
}

// list reads a sequence. A non-list is reported and gives nil, false.
func (p *parser) list(n *yaml.Node, what, want string) ([]*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		p.wrong(n, what, want)
		return nil, false
	}
	return n.Content, true
}

// names reads a list of member or client names.
func (p *parser) names(n *yaml.Node, what string) ([]string, bool) {
	items, ok := p.list(n, what, "a list of names like [etcd-1, etcd-2]")
	if !ok {
		return nil, false
	}
	out := []string{}
	for _, it := range items {
		s, good := p.name(it, what)
		if !good {
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok
}

// name reads a member or client name.
func (p *parser) name(n *yaml.Node, what string) (string, bool) {
	s, ok := p.str(n, what)
	if !ok {
		return "", false
	}
	if !nameRE.MatchString(s) {
		p.errorf(p.pos(n), "%s: bad name %q: want lower-case letters, digits and dashes, like etcd-1", what, s)
		return "", false
	}
	return s, true
}
