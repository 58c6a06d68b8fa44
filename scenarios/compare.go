package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Setting is one `--compare KEY=VALUE`: a key of the scenario format's
// cluster: or network: and a value for it, written as in a file. The
// scenario is parsed again with the value in place of the file's own (or
// added, when the file does not set the key), so the value is validated
// exactly as the file's would be, together with the rest of the file.
type Setting struct {
	Flag    string // the flag, "--compare", for positions
	Arg     string // its argument as given: "pre_vote=false"
	Section string // "cluster" or "network"
	Key     string // "pre_vote"
	Value   string // "false"
	keyCol  int    // where Key starts in Arg (1-based)
	valCol  int    // where Value starts in Arg

	// node and keyNode are a compare: pane's value and key, in the file
	// (nil for a flag's).
	node, keyNode *yaml.Node
}

// CompareKeys are the keys a Setting may name: every key of cluster: and
// network:.
func CompareKeys() []string { return slices.Concat(clusterKeys, networkKeys) }

// Label is how a pane or a run is labelled with the setting: "pre_vote: false".
func (s Setting) Label() string { return s.Key + ": " + s.Value }

// flagPos is a position in the setting's flag: column col of its argument.
func (s Setting) flagPos(col int) Pos { return Pos{File: s.Flag + " " + s.Arg, Col: col} }

// ParseSetting reads the argument of a --compare flag (flag names it in
// errors): KEY=VALUE, KEY a cluster or network key, plain (pre_vote) or
// with its section (cluster.pre_vote). The value is checked when the
// scenario is parsed with it (ParseWith). An error is an *Error whose
// position is the column within the argument.
func ParseSetting(flag, arg string) (Setting, error) {
	s := Setting{Flag: flag, Arg: arg, keyCol: 1}
	eq := strings.IndexByte(arg, '=')
	if eq < 0 {
		return s, &Error{Pos: s.flagPos(len(arg) + 1), Msg: "want KEY=VALUE, like pre_vote=false (KEY a cluster or network key of the scenario format)"}
	}
	key, value := arg[:eq], arg[eq+1:]
	s.valCol = eq + 2
	if sec, k, ok := strings.Cut(key, "."); ok {
		if sec != "cluster" && sec != "network" {
			return s, &Error{Pos: s.flagPos(1), Msg: fmt.Sprintf("%q: want cluster.KEY, network.KEY or a plain KEY", sec)}
		}
		s.Section, key, s.keyCol = sec, k, len(sec)+2
	}
	switch {
	case key == "":
		return s, &Error{Pos: s.flagPos(s.keyCol), Msg: "missing KEY before =, like pre_vote=false"}
	case contains(clusterKeys, key) && s.Section != "network":
		s.Section = "cluster"
	case contains(networkKeys, key) && s.Section != "cluster":
		s.Section = "network"
	case s.Section != "":
		keys := clusterKeys
		if s.Section == "network" {
			keys = networkKeys
		}
		return s, &Error{Pos: s.flagPos(s.keyCol), Msg: fmt.Sprintf("unknown %s key %q: want one of %s", s.Section, key, strings.Join(keys, ", "))}
	default:
		return s, &Error{Pos: s.flagPos(s.keyCol), Msg: fmt.Sprintf("unknown setting %q: want a cluster key (%s) or a network key (%s)",
			key, strings.Join(clusterKeys, ", "), strings.Join(networkKeys, ", "))}
	}
	s.Key = key
	if strings.TrimSpace(value) == "" {
		return s, &Error{Pos: s.flagPos(s.valCol), Msg: fmt.Sprintf("%s: missing value after =, like %s=%s", key, key, settingDefault[key])}
	}
	s.Value = strings.TrimSpace(value)
	return s, nil
}

// ParseWith parses a scenario with settings in place of the file's own.
// An error at a flag's value says where in the flag; an error elsewhere
// that only the settings cause (election_ticks no more than a
// heartbeat_ticks given) is at the file's position and names the flags.
func ParseWith(filename string, data []byte, settings []Setting) (*Scenario, error) {
	return parseWith(filename, data, nil, settings)
}

// parseWith is ParseWith for one pane of a compare: lesson (pane nil: a
// scenario without compare:). The pane's own settings come first, so that
// a flag's for the same key wins.
func parseWith(filename string, data []byte, pane *Pane, settings []Setting) (*Scenario, error) {
	if len(settings) == 0 && pane == nil {
		return Parse(filename, data)
	}
	for i, s := range settings {
		for _, t := range settings[:i] {
			if t.Section == s.Section && t.Key == s.Key {
				return nil, ErrorList{{Pos: s.flagPos(s.keyCol), Msg: fmt.Sprintf("%s is compared twice (also %s %s); compare two different settings", s.Key, t.Flag, t.Arg)}}
			}
		}
	}
	p := &parser{file: filename, data: data, settings: settings}
	if pane != nil {
		p.inPane, p.pane = true, pane.Name
		p.settings = slices.Concat(pane.Settings, settings)
	}
	sc := p.parse()
	if len(p.errs) > 0 {
		errs := p.errs.sort()
		var flags []string
		for _, s := range settings {
			flags = append(flags, s.Flag+" "+s.Arg)
		}
		for _, e := range errs {
			if !e.Pos.inFlag() {
				e.Msg += " (with " + strings.Join(flags, ", ") + ")"
			}
		}
		return nil, errs
	}
	return sc, nil
}

// applySettings puts each setting's value in the document, in place of
// the file's or added to its section, and notes where in the flag every
// node it adds is. It reports false, having said why, for a value that is
// not YAML.
func (p *parser) applySettings(root *yaml.Node) bool {
	if root.Kind != yaml.MappingNode {
		return true // the parse says what is wrong
	}
	p.flagPos = map[*yaml.Node]Pos{}
	ok := true
	for _, st := range p.settings {
		v, k := st.node, st.keyNode
		if v == nil {
			var doc yaml.Node
			err := yaml.Unmarshal([]byte(st.Value), &doc)
			if err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
				msg := "not a YAML value"
				if err != nil {
					_, msg = splitYAMLError(err)
				}
				p.errorf(st.flagPos(st.valCol), "%s: YAML syntax error: %s", st.Key, msg)
				ok = false
				continue
			}
			v = doc.Content[0]
			p.markFlag(v, st)
			k = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.Key}
			p.flagPos[k] = st.flagPos(st.keyCol)
		}
		var sec *yaml.Node
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == st.Section {
				sec = root.Content[i+1]
			}
		}
		if sec == nil {
			sk := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.Section, Line: k.Line, Column: k.Column}
			sec = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: k.Line, Column: k.Column}
			if st.node == nil {
				p.flagPos[sk], p.flagPos[sec] = st.flagPos(1), st.flagPos(1)
			}
			root.Content = append(root.Content, sk, sec)
		}
		if sec.Kind != yaml.MappingNode {
			continue // the parse says what is wrong with the file's
		}
		replaced := false
		for i := 0; i+1 < len(sec.Content); i += 2 {
			if sec.Content[i].Value == st.Key {
				sec.Content[i], sec.Content[i+1] = k, v
				replaced = true
			}
		}
		if !replaced {
			sec.Content = append(sec.Content, k, v)
		}
	}
	return ok
}

// markFlag notes where in the setting's flag n and the nodes in it are.
func (p *parser) markFlag(n *yaml.Node, st Setting) {
	col := st.valCol
	if n.Line == 1 {
		col += n.Column - 1
	}
	p.flagPos[n] = st.flagPos(col)
	for _, c := range n.Content {
		p.markFlag(c, st)
	}
}

// settingDefault is each key's value when a file does not set it, as
// docs/scenarios.md gives it ("" for a key with no value of its own).
var settingDefault = map[string]string{
	"members": "5", "learners": "[]", "tick": "100ms", "election_ticks": "10", "heartbeat_ticks": "1",
	"pre_vote": "true", "check_quorum": "true", "read_only": "safe", "proposal_forwarding": "true",
	"max_inflight_msgs": "512", "max_size_per_msg": "1MiB", "snapshot_every": "0",
	"quota_backend_bytes": "2147483648", "disk_latency": "0s", "topology": "", "client_latency": "1ms",
	"apiservers": "", "initial_election_tick_advance": "true", "compaction_interval": "0s",
	"bootstrap": "etcd", "token": "etcd-cluster", "peer_urls": "", "client_urls": "", "from_snapshot": "",
	"latency": "5ms-15ms", "loss": "0%", "duplicate": "0%", "links": "[]",
}

// FileValue is the value the file gives the setting's key, as written
// (a list or mapping in flow style), or the key's default when the file
// does not set it ("unset" for a key without one).
func FileValue(data []byte, st Setting) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) == nil && doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		if sec := mapValue(doc.Content[0], st.Section); sec != nil {
			if v := mapValue(sec, st.Key); v != nil {
				if v.Kind == yaml.ScalarNode {
					return v.Value
				}
				c := *v
				c.Style = yaml.FlowStyle
				if b, err := yaml.Marshal(&c); err == nil {
					return strings.TrimSpace(string(b))
				}
			}
		}
	}
	if d := settingDefault[st.Key]; d != "" {
		return d
	}
	return "unset"
}

// mapValue is the value of key in the mapping n, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// A Variant is one of the runs a comparison makes: the scenario with some
// of the settings (none: as written).
type Variant struct {
	Label    string    // every compared key with its value here: "pre_vote: false, check_quorum: true"
	Settings []Setting // the settings this run has
	Scenario *Scenario
	Pane     bool // a pane of a compare: lesson, as written there
}

// LoadCompare loads a scenario file or lesson (as Load) and makes the
// runs that compare the settings: with one, the scenario as written and
// with the setting; with two, every combination, in the order as written,
// the first, the second, both.
//
// A lesson with compare: and no settings makes its panes' runs; an alias
// (one pane of one, under its own name) compares as that pane.
func LoadCompare(arg string, settings []Setting) ([]Variant, error) {
	file, data, err := loadSource(arg)
	var pane *Pane
	if err != nil {
		s, ok := aliasLesson(arg)
		if !bareName(arg) || !ok {
			return nil, err
		}
		if file, data, err = lessonSource(s.AliasOf); err != nil {
			return nil, err
		}
		c, err := Parse(file, data)
		if err != nil {
			return nil, err
		}
		for i := range c.Panes {
			if c.Panes[i].Lesson == arg {
				pane = &c.Panes[i]
			}
		}
	}
	return compareVariants(file, data, pane, settings)
}

// CompareVariants is LoadCompare for a file's bytes.
func CompareVariants(file string, data []byte, settings []Setting) ([]Variant, error) {
	return compareVariants(file, data, nil, settings)
}

func compareVariants(file string, data []byte, pane *Pane, settings []Setting) ([]Variant, error) {
	if len(settings) > 2 {
		return nil, ErrorList{{Pos: settings[2].flagPos(1), Msg: "at most two settings can be compared (four runs)"}}
	}
	base, err := parseWith(file, data, pane, nil)
	if err != nil {
		return nil, err
	}
	if pane != nil {
		base.Name = pane.Lesson
	}
	if len(base.Panes) > 0 {
		if len(settings) > 0 {
			return nil, ErrorList{{Pos: settings[0].flagPos(1), Msg: fmt.Sprintf("%s compares its own panes (compare:); --compare is for a scenario without, or one of its panes' lessons", base.Name)}}
		}
		var out []Variant
		for _, pn := range base.Panes {
			out = append(out, Variant{Label: pn.Label.En, Settings: pn.Settings, Scenario: pn.Scenario, Pane: true})
		}
		return out, nil
	}
	var out []Variant
	for mask := 0; mask < 1<<len(settings); mask++ {
		var with []Setting
		var label []string
		for i, st := range settings {
			if mask&(1<<i) != 0 {
				with = append(with, st)
				label = append(label, st.Label())
			} else {
				v := FileValue(data, st)
				if pane != nil {
					for _, ps := range pane.Settings {
						if ps.Key == st.Key {
							v = ps.Value
						}
					}
				}
				label = append(label, st.Key+": "+v)
			}
		}
		s, err := parseWith(file, data, pane, with)
		if err != nil {
			return nil, err
		}
		if pane != nil {
			s.Name = pane.Lesson
		}
		out = append(out, Variant{Label: strings.Join(label, ", "), Settings: with, Scenario: s})
	}
	return out, nil
}
