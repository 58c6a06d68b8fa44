package sim_test

import (
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// TestNewRejectsBadConfig: bad input is an error, never a panic.
func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*sim.Config)
		want   string
	}{
		{"no members", func(c *sim.Config) { c.Members = nil }, "at least one member"},
		{"duplicate member", func(c *sim.Config) { c.Members = []string{"a", "a"} }, "listed twice"},
		{"learner not a member", func(c *sim.Config) { c.Learners = []string{"x"} }, "learner"},
		// raft panicked with "removed all voters" (issue 13).
		{"every member a learner", func(c *sim.Config) { c.Learners = c.Members }, "at least one voter"},
		{"member named like an apiserver", func(c *sim.Config) {
			c.Members[1], c.Topology = "apiserver-1", "stacked"
		}, "kube-apiserver"},
		{"no tick", func(c *sim.Config) { c.Tick = 0 }, "tick"},
		{"heartbeat >= election", func(c *sim.Config) { c.HeartbeatTicks = c.ElectionTicks }, "heartbeat"},
		{"client named as member", func(c *sim.Config) {
			c.Clients = []sim.ClientConfig{{Name: "n1", Endpoints: []string{"n2"}}}
		}, "name of a member"},
		{"client endpoint unknown", func(c *sim.Config) {
			c.Clients = []sim.ClientConfig{{Name: "c", Endpoints: []string{"n9"}}}
		}, "not a member"},
		{"client without endpoints", func(c *sim.Config) {
			c.Clients = []sim.ClientConfig{{Name: "c"}}
		}, "endpoint"},
		{"unknown topology", func(c *sim.Config) { c.Topology = "mesh" }, "topology"},
		{"link from unknown member", func(c *sim.Config) { c.Links = []sim.LinkOverride{{From: "n9", To: "n1"}} }, "n9"},
		{"link to unknown member", func(c *sim.Config) { c.Links = []sim.LinkOverride{{From: "n1", To: "n9"}} }, "n9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sim.DefaultConfig()
			tc.change(&cfg)
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("New panicked: %v", r)
					}
				}()
				_, err = sim.New(cfg)
			}()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: got %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
}
