package scenarios

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A Pane is one of the runs a lesson's compare: makes: the scenario with
// the pane's settings, its own steps (those with no pane:, and those
// naming it) and its label.
type Pane struct {
	Name     string
	Label    Text      // the pane's caption: given, or its settings ("pre_vote: false")
	Settings []Setting // the pane's cluster and network settings
	// Lesson, if set, is the built-in lesson this pane is on its own (an
	// alias: pre-vote is the first pane of pre-vote-compare), with its
	// Title and Summary.
	Lesson         string
	Title, Summary Text
	Scenario       *Scenario
}

var compareKeys = []string{"pane", "settings", "caption", "lesson", "title", "summary"}

// compareLesson parses a scenario with compare: (at n): every pane is the
// file parsed again with its settings and its steps. The scenario it
// returns is the first pane's, with Panes set.
func (p *parser) compareLesson(root, n *yaml.Node) *Scenario {
	items, ok := p.list(n, "compare", "a list of panes, like - {pane: on, settings: {pre_vote: true}}")
	if !ok {
		return nil
	}
	if len(items) < 2 || len(items) > 4 {
		p.errorf(p.pos(n), "compare: %d panes: want 2 to 4 (side by side, or two by two)", len(items))
		return nil
	}
	var panes []Pane
	for _, it := range items {
		f := p.mapping(it, "a pane", compareKeys)
		if f == nil {
			continue
		}
		var pn Pane
		if v := f.get("pane"); v == nil {
			p.errorf(p.pos(it), "a pane: missing pane: (its name, like on or off, that steps name in pane:)")
		} else if name, ok := p.name(v, "pane"); ok {
			if slices.ContainsFunc(panes, func(q Pane) bool { return q.Name == name }) {
				p.errorf(p.pos(v), "pane %q is listed twice", name)
			}
			pn.Name = name
		}
		if v := f.get("settings"); v == nil {
			p.errorf(p.pos(it), "a pane: missing settings: (the cluster and network keys it changes, like {pre_vote: false})")
		} else if sf := p.mapping(v, "pane settings", CompareKeys()); sf != nil {
			var label []string
			for _, x := range sf {
				st := Setting{Section: "cluster", Key: x.key, node: x.v, keyNode: x.k}
				if contains(networkKeys, x.key) {
					st.Section = "network"
				}
				st.Value = x.v.Value
				if x.v.Kind != yaml.ScalarNode {
					st.Value = flowText(x.v)
				}
				pn.Settings = append(pn.Settings, st)
				label = append(label, st.Label())
			}
			pn.Label = Text{En: strings.Join(label, ", ")}
		}
		if v := f.get("caption"); v != nil {
			pn.Label, _ = p.text(v, "pane caption")
		}
		if v := f.get("lesson"); v != nil {
			if name, ok := p.str(v, "pane lesson"); ok {
				if !nameRE.MatchString(name) {
					p.errorf(p.pos(v), "bad lesson name %q: want lower-case letters, digits and dashes", name)
				}
				pn.Lesson = name
			}
		}
		if v := f.get("title"); v != nil {
			pn.Title, _ = p.text(v, "pane title")
		}
		if v := f.get("summary"); v != nil {
			pn.Summary, _ = p.text(v, "pane summary")
		}
		panes = append(panes, pn)
	}
	var names []string
	for _, pn := range panes {
		names = append(names, pn.Name)
	}
	p.checkStepPanes(root, names)
	if len(p.errs) > 0 {
		return nil
	}
	for i := range panes {
		sub := &parser{file: p.file, data: p.data, settings: panes[i].Settings, pane: panes[i].Name, inPane: true}
		panes[i].Scenario = sub.parse()
		p.errs = append(p.errs, sub.errs...)
	}
	if len(p.errs) > 0 {
		return nil
	}
	s := *panes[0].Scenario // the pane's own has no Panes
	s.Panes = panes
	return &s
}

// flowText writes a list or mapping as a flow-style value.
func flowText(n *yaml.Node) string {
	c := *n
	c.Style = yaml.FlowStyle
	b, err := yaml.Marshal(&c)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// checkStepPanes checks every step's pane: (a pane's name or a list of
// them).
func (p *parser) checkStepPanes(root *yaml.Node, panes []string) {
	steps := mapValue(root, "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	for _, it := range steps.Content {
		v := mapValue(it, "pane")
		if v == nil {
			continue
		}
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = v.Content
		}
		for _, x := range items {
			if name, ok := p.name(x, "pane"); ok && !contains(panes, name) {
				p.errorf(p.pos(x), "pane: unknown pane %q (compare: has %s)", name, strings.Join(panes, ", "))
			}
		}
	}
}

// paneSteps leaves in the steps only those of the pane being parsed: a
// step with no pane:, or whose pane: names it; and takes pane: out of
// them, so that the steps read as any scenario's.
func (p *parser) paneSteps(root *yaml.Node) {
	steps := mapValue(root, "steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	var kept []*yaml.Node
	for _, it := range steps.Content {
		v := mapValue(it, "pane")
		if v == nil {
			kept = append(kept, it)
			continue
		}
		in := v.Value == p.pane
		if v.Kind == yaml.SequenceNode {
			in = slices.ContainsFunc(v.Content, func(x *yaml.Node) bool { return x.Value == p.pane })
		}
		if !in {
			continue
		}
		var content []*yaml.Node
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value != "pane" {
				content = append(content, it.Content[i], it.Content[i+1])
			}
		}
		it.Content = content
		kept = append(kept, it)
	}
	steps.Content = kept
}

// Alias finds the compare lesson with a pane that is the lesson name on
// its own, and returns that pane's scenario under the alias's name,
// title and summary.
func aliasLesson(name string) (*Scenario, bool) {
	for _, c := range compareLessons() {
		for _, pn := range c.Panes {
			if pn.Lesson == name {
				s := *pn.Scenario
				s.Name, s.Title, s.Summary = name, pn.Title, pn.Summary
				s.AliasOf = c.Name
				return &s, true
			}
		}
	}
	return nil, false
}

// compareLessons are the built-in lessons with compare:.
func compareLessons() []*Scenario {
	var out []*Scenario
	for _, name := range libraryFiles() {
		data, err := library.ReadFile("library/" + name + ".yaml")
		if err != nil || !strings.Contains(string(data), "\ncompare:") {
			continue
		}
		if s, err := Parse(name+".yaml", data); err == nil {
			out = append(out, s)
		}
	}
	return out
}

// PaneOf says which pane of which compare lesson an alias is: "" when
// name is not an alias.
func PaneOf(name string) (lesson string, pane int) {
	for _, c := range compareLessons() {
		for i, pn := range c.Panes {
			if pn.Lesson == name {
				return c.Name, i
			}
		}
	}
	return "", 0
}
