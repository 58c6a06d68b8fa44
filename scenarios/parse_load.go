package scenarios

import (
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/sim"
)

var loadKeys = []string{"for", "rate", "via", "keys", "prefix", "distribution", "mix", "background"}
var mixKeys = []string{"put", "get", "serializable", "delete", "txn"}

// The defaults of a load step.
const (
	defaultLoadRate   = 10
	defaultLoadKeys   = 10
	defaultLoadPrefix = "/load/"
)

// load reads load: {for, rate, via, keys, prefix, distribution, mix,
// background}. Its via defaults to every client (validate fills it in).
func (p *parser) load(st *Step, v *yaml.Node) {
	f := p.mapping(v, "load", loadKeys)
	if f == nil {
		return
	}
	spec := &sim.LoadSpec{Rate: defaultLoadRate, Keys: defaultLoadKeys, Prefix: defaultLoadPrefix,
		Mix: sim.LoadMix{Put: 1, Get: 1}}
	st.Load = spec
	if x := f.get("for"); x == nil {
		p.errorf(p.pos(v), "load: missing for: (how long it runs, like 10m or 1h)")
	} else {
		spec.For, _ = p.positive(x, "load for")
	}
	if x := f.get("rate"); x != nil {
		if n, ok := p.integer(x, "load rate", 1, sim.MaxLoadRate); ok {
			spec.Rate = int(n)
		}
	}
	if x := f.get("keys"); x != nil {
		if n, ok := p.integer(x, "load keys", 1, sim.MaxLoadKeys); ok {
			spec.Keys = int(n)
		}
	}
	if x := f.get("prefix"); x != nil {
		spec.Prefix, _ = p.str(x, "load prefix")
	}
	if x := f.get("via"); x != nil {
		items := []*yaml.Node{x}
		if x.Kind == yaml.SequenceNode {
			items = x.Content
			if len(items) == 0 {
				p.errorf(p.pos(x), "load via: want at least one client")
			}
		}
		for _, it := range items {
			if name, ok := p.name(it, "load via"); ok {
				spec.Via = append(spec.Via, name)
				st.LoadVia = append(st.LoadVia, p.pos(it))
			}
		}
	}
	if x := f.get("distribution"); x != nil {
		if d, ok := p.str(x, "load distribution"); ok {
			switch d {
			case "uniform":
			case "zipf":
				spec.Zipf = true
			default:
				p.errorf(p.pos(x), "load distribution: want uniform or zipf (key i drawn in proportion to 1/(i+1)), found %q", d)
			}
		}
	}
	if x := f.get("mix"); x != nil {
		mf := p.mapping(x, "load mix", mixKeys)
		if mf != nil {
			spec.Mix = sim.LoadMix{}
			weights := map[string]*int{"put": &spec.Mix.Put, "get": &spec.Mix.Get, "serializable": &spec.Mix.Serializable,
				"delete": &spec.Mix.Delete, "txn": &spec.Mix.Txn}
			for _, m := range mf {
				if n, ok := p.integer(m.v, "load mix "+m.key, 0, 1_000_000); ok {
					*weights[m.key] = int(n)
				}
			}
			if spec.Mix.Total() == 0 && len(mf) > 0 {
				p.errorf(p.pos(x), "load mix: want a weight above zero, like {put: 4, get: 1}")
			}
		}
	}
	if x := f.get("background"); x != nil {
		st.Background, _ = p.boolean(x, "load background")
	}
}

// loadVia checks a load's clients, and gives one without via: every
// client the scenario has, or every member's local client if it has none.
func (v *validator) loadVia(st *Step) {
	if st.Load == nil {
		return
	}
	if len(st.Load.Via) == 0 && len(st.LoadVia) == 0 {
		for _, c := range v.s.Config.Clients {
			st.Load.Via = append(st.Load.Via, c.Name)
		}
		for i := range v.s.Config.Members {
			if name := apiserverName(i); v.clients[name] && !contains(st.Load.Via, name) {
				st.Load.Via = append(st.Load.Via, name)
			}
		}
		if len(st.Load.Via) == 0 {
			st.Load.Via = append(st.Load.Via, v.current...)
		}
		return
	}
	for i, name := range st.Load.Via {
		if !v.clients[name] && (v.p.membersOK && !v.known[name]) {
			v.p.errorf(st.LoadVia[i], "load via: unknown client or member %q (clients: %s; members: %s)", name, v.clientList(), v.memberList())
		}
	}
}

// clientList names the clients, for errors.
func (v *validator) clientList() string {
	var names []string
	for _, c := range v.s.Config.Clients {
		names = append(names, c.Name)
	}
	for i := range v.s.Config.Members {
		if name := apiserverName(i); v.clients[name] && !contains(names, name) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
