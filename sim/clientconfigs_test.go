package sim

import (
	"reflect"
	"strings"
	"testing"
)

// A configuration says which clients a world built from it has
// (Config.ClientConfigs, which the window's layout reads without building
// one): the configured clients, and for a topology its kube-apiservers,
// stacked or external, one per member or for the first Apiservers, a
// configured client of an apiserver's name kept in its place.
func TestClientConfigsAreTheWorlds(t *testing.T) {
	base := SandboxConfig()
	cases := map[string]func(c *Config){
		"sandbox":      func(*Config) {},
		"no topology":  func(c *Config) { c.Topology, c.Apiservers = "", 0 },
		"stacked":      func(c *Config) { c.Apiservers = 0 },
		"external":     func(c *Config) { c.Topology, c.Apiservers = "external", 0 },
		"apiservers 1": func(c *Config) { c.Topology, c.Apiservers = "external", 1 },
		"an apiserver configured": func(c *Config) {
			c.Apiservers = 0
			c.Clients = append(c.Clients, ClientConfig{Name: "apiserver-2", Endpoints: []string{c.Members[0]}, Timeout: DefaultClientTimeout})
		},
	}
	for _, name := range []string{"sandbox", "no topology", "stacked", "external", "apiservers 1", "an apiserver configured"} {
		cfg := base
		cfg.Clients = append([]ClientConfig(nil), base.Clients...)
		cases[name](&cfg)
		w, err := New(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, want := cfg.ClientConfigs(), w.Clients()
		if (len(got) > 0 || len(want) > 0) && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the configuration says\n%+v\nthe world has\n%+v", name, got, want)
		}
		var apis []string
		for _, c := range got[len(cfg.Clients):] {
			apis = append(apis, c.Name+"→"+strings.Join(c.Endpoints, ","))
		}
		if w := wantAPIs[name]; strings.Join(apis, " ") != w {
			t.Errorf("%s: apiservers %q, want %q", name, apis, w)
		}
	}
}

// wantAPIs are the apiservers (name→endpoints) each case adds to the
// sandbox's five members' configured clients (the sandbox: stacked, on
// the first three).
var wantAPIs = map[string]string{
	"sandbox":                 "apiserver-1→etcd-1 apiserver-2→etcd-2 apiserver-3→etcd-3",
	"stacked":                 "apiserver-1→etcd-1 apiserver-2→etcd-2 apiserver-3→etcd-3 apiserver-4→etcd-4 apiserver-5→etcd-5",
	"external":                "apiserver-1→etcd-1,etcd-2,etcd-3,etcd-4,etcd-5 apiserver-2→etcd-2,etcd-1,etcd-3,etcd-4,etcd-5 apiserver-3→etcd-3,etcd-1,etcd-2,etcd-4,etcd-5 apiserver-4→etcd-4,etcd-1,etcd-2,etcd-3,etcd-5 apiserver-5→etcd-5,etcd-1,etcd-2,etcd-3,etcd-4",
	"apiservers 1":            "apiserver-1→etcd-1,etcd-2,etcd-3,etcd-4,etcd-5",
	"an apiserver configured": "apiserver-1→etcd-1 apiserver-3→etcd-3 apiserver-4→etcd-4 apiserver-5→etcd-5",
}
