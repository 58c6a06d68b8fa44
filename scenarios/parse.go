package scenarios

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

// Parse reads a scenario file. filename is used only in positions. On any
// input error it returns a nil *Scenario and an ErrorList holding every error
// found, sorted by position.
func Parse(filename string, data []byte) (*Scenario, error) {
	if sessionHead(data) {
		return ParseSession(filename, bytes.NewReader(data))
	}
	p := &parser{file: filename, data: data}
	s := p.parse()
	if len(p.errs) > 0 {
		return nil, p.errs.sort()
	}
	return s, nil
}

// parser holds the state of one Parse call; nothing is shared between calls.
type parser struct {
	file string
	data []byte
	errs ErrorList

	// membersOK is false when cluster.members could not be read, so that
	// every later reference is not also reported as an unknown member.
	membersOK bool
	// memberPos is where each name of a members: list is.
	memberPos []Pos
	// stepsNode is the steps: of the file, read after its head.
	stepsNode *yaml.Node
	// snapshotPos is where snapshot_every is, if it is given.
	snapshotPos Pos

	// settings are --compare's KEY=VALUE, put in place of the file's
	// own (compare.go); flagPos is where in its flag each of their nodes is.
	settings []Setting
	flagPos  map[*yaml.Node]Pos
	// inPane is set while one pane of a compare: lesson is parsed: the
	// steps of pane only (compare_lesson.go).
	inPane bool
	pane   string
}

var topKeys = []string{"name", "title", "summary", "seed", "cluster", "network", "clients", "steps", "bugs", "session", "compare"}

// nameRE is the shape of scenario, member and client names.
var nameRE = regexp.MustCompile(`^[a-z0-9-]+$`)

// identRE is the shape of labels and let variables.
var identRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func (p *parser) parse() *Scenario {
	s := p.head()
	if s == nil {
		return nil
	}
	if n := p.stepsNode; n != nil {
		s.Steps = p.steps(n)
	}
	p.validate(s)
	return s
}

// head reads everything but the steps, leaving their node in p.stepsNode.
func (p *parser) head() *Scenario {
	root, ok := p.decode()
	if !ok {
		return nil
	}
	if root.Kind == yaml.MappingNode && !p.inPane {
		if c := mapValue(root, "compare"); c != nil {
			return p.compareLesson(root, c)
		}
	}
	if p.inPane {
		p.paneSteps(root)
	}
	if len(p.settings) > 0 && !p.applySettings(root) {
		return nil
	}
	s := &Scenario{File: p.file, Config: sim.DefaultConfig(), ConfigPos: map[string]Pos{}, Seed: 1}
	f := p.mapping(root, "the scenario", topKeys)
	if f == nil {
		return nil
	}
	if n := f.get("name"); n == nil {
		p.errorf(p.pos(root), "missing name: want a scenario name like split-brain ([a-z0-9-]+)")
	} else if v, ok := p.str(n, "name"); ok {
		if !nameRE.MatchString(v) {
			p.errorf(p.pos(n), "bad name %q: want lower-case letters, digits and dashes, like split-brain", v)
		}
		s.Name = v
	}
	if n := f.get("title"); n != nil {
		s.Title, _ = p.text(n, "title")
	}
	if n := f.get("summary"); n != nil {
		s.Summary, _ = p.text(n, "summary")
	}
	if n := f.get("session"); n != nil {
		s.Session, _ = p.boolean(n, "session")
	}
	if n := f.get("seed"); n != nil {
		if v, ok := p.uint(n, "seed"); ok {
			s.Seed, s.SeedSet = v, true
		}
	}
	s.Config.Seed = s.Seed

	p.membersOK = true
	if n := f.get("cluster"); n != nil {
		p.cluster(n, s)
	}
	if n := f.get("network"); n != nil {
		p.network(n, s)
	}
	if n := f.get("clients"); n != nil {
		p.clients(n, s)
	}
	if n := f.get("bugs"); n != nil {
		s.Config.Bugs = p.bugs(n)
	}
	p.stepsNode = f.get("steps")
	return s
}

// bugs reads bugs: [name, ...], the faults injected into the simulator
// for this scenario (sim.Bug).
func (p *parser) bugs(n *yaml.Node) []sim.Bug {
	items, ok := p.list(n, "bugs", "a list of injected bugs, like [forget-vote]")
	if !ok {
		return nil
	}
	var out []sim.Bug
	for _, it := range items {
		name, ok := p.str(it, "bug")
		if !ok {
			continue
		}
		b, err := sim.ParseBug(name)
		switch {
		case err != nil:
			p.errorf(p.pos(it), "bugs: %v", err)
		case slices.Contains(out, b):
			p.errorf(p.pos(it), "bugs: %s is listed twice", name)
		default:
			out = append(out, b)
		}
	}
	return out
}

// decode reads the one YAML document of the file and returns its root node.
func (p *parser) decode() (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(p.data))
	var doc yaml.Node
	if err := p.safeDecode(dec, &doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(Pos{File: p.file, Line: 1, Col: 1}, "empty scenario: want a mapping with at least name: and steps:")
		} else {
			p.errs = append(p.errs, syntaxError(p.file, p.data, err))
		}
		return nil, false
	}
	var next yaml.Node
	switch err := p.safeDecode(dec, &next); {
	case err == nil:
		p.errorf(p.pos(&next), "a second YAML document: a scenario file holds exactly one (remove the ---)")
		return nil, false
	case !errors.Is(err, io.EOF):
		p.errs = append(p.errs, syntaxError(p.file, p.data, err))
		return nil, false
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		p.errorf(Pos{File: p.file, Line: 1, Col: 1}, "empty scenario: want a mapping with at least name: and steps:")
		return nil, false
	}
	return doc.Content[0], true
}

// safeDecode guards against panics inside yaml.v3 itself, so that Parse
// keeps its promise never to panic whatever the input.
func (p *parser) safeDecode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("yaml: the YAML parser failed on this input")
		}
	}()
	return dec.Decode(n)
}
