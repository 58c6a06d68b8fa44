package ui

import (
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// Clients outside the simulation: the real etcdctl, clientv3 programs or
// kube-apiservers that raftsim serve lets in (sim.Op.External). The window
// draws each as a client box named after its address, in the strip of
// clients with several endpoints, with every member as an endpoint chip
// and the chip of the member its last request went to filled.
//
// etcdctl opens a new connection, so comes from a new address, for every
// command: only clients that still wait for an answer (an open watch
// included), or have sent a request in the last wireLinger of virtual
// time, are drawn, the newest maxWireClients of them.
const (
	wireLinger     = 10 * time.Second
	maxWireClients = 6
	// wireScan bounds how far back the operations are looked through.
	wireScan = 4096
)

// wireClients returns the outside clients to draw, in the order of their
// first request, from ops (n of them, the i-th by op(i), oldest first).
func wireClients(n int, op func(i int) *sim.Op, members []string, now sim.Time) []sim.ClientConfig {
	var names []string
	seen := map[string]bool{}
	for i := n - 1; i >= max(0, n-wireScan) && len(names) < maxWireClients; i-- {
		o := op(i)
		if o == nil || !o.External() || seen[o.Client] {
			continue
		}
		open := o.Status == sim.OpPending || o.Kind == sim.OpWatch && o.Status == sim.OpOK
		if !open && now-o.Start > sim.Time(wireLinger) {
			continue
		}
		seen[o.Client] = true
		names = append(names, o.Client)
	}
	out := make([]sim.ClientConfig, len(names))
	for i, name := range names {
		out[len(names)-1-i] = sim.ClientConfig{Name: name, Endpoints: members}
	}
	return out
}

// viewWireClients is wireClients over a view.
func viewWireClients(v sim.View) []sim.ClientConfig {
	members := make([]string, len(v.Members))
	for i, m := range v.Members {
		members[i] = m.Name
	}
	return wireClients(len(v.Ops), func(i int) *sim.Op { return &v.Ops[i] }, members, v.Now)
}

// wireKey names the set of outside clients drawn now, so that the layout
// is made again when it changes.
func wireKey(w *sim.World) string {
	ops := w.Ops()
	var names []string
	for _, c := range wireClients(len(ops), func(i int) *sim.Op { return ops[i] }, nil, w.Now()) {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}
