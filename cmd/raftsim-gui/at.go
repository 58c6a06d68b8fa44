package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// parseAt turns one --at value into a command stamped with its time.
func parseAt(s string) (sim.Command, error) {
	parts := strings.Split(s, ":")
	bad := func(why string) (sim.Command, error) {
		return sim.Command{}, fmt.Errorf("--at %q: %s", s, why)
	}
	if len(parts) < 2 {
		return bad("want TIME:ACTION[:ARGS]")
	}
	d, err := time.ParseDuration(parts[0])
	if err != nil || d < 0 {
		return bad("bad time " + parts[0])
	}
	c := sim.Command{At: sim.Time(d)}
	args := parts[2:]
	need := func(n int) bool { return len(args) == n }
	switch kind := parts[1]; kind {
	case "crash", "restart", "campaign", "isolate", "transfer":
		if !need(1) {
			return bad(kind + " needs a member")
		}
		c.Kind = map[string]sim.CommandKind{"crash": sim.CmdCrash, "restart": sim.CmdRestart, "campaign": sim.CmdCampaign,
			"isolate": sim.CmdIsolate, "transfer": sim.CmdTransferLeader}[kind]
		c.Node = args[0]
	case "stall":
		if !need(2) {
			return bad("stall needs a member and a duration")
		}
		c.Kind, c.Node = sim.CmdStall, args[0]
		if c.For, err = time.ParseDuration(args[1]); err != nil {
			return bad("bad duration " + args[1])
		}
	case "heal":
		c.Kind = sim.CmdHeal
	case "cut", "cut1", "restore":
		if !need(2) {
			return bad(kind + " needs two members")
		}
		c.Kind, c.From, c.To, c.OneWay = sim.CmdCut, args[0], args[1], kind == "cut1"
		if kind == "restore" {
			c.Kind = sim.CmdRestore
		}
	case "partition":
		if !need(1) {
			return bad("partition needs groups, e.g. a,b/c,d,e")
		}
		c.Kind = sim.CmdPartition
		for _, g := range strings.Split(args[0], "/") {
			c.Groups = append(c.Groups, strings.Split(g, ","))
		}
	case "put":
		if !need(3) {
			return bad("put needs VIA:KEY:VALUE")
		}
		c.Kind, c.Via, c.Req = sim.CmdPut, args[0], server.Put(args[1], args[2])
	case "get", "get-serializable":
		if !need(2) {
			return bad("get needs VIA:KEY")
		}
		c.Kind, c.Via, c.Req = sim.CmdGet, args[0], server.Get(args[1], kind == "get-serializable")
	case "say":
		c.Kind, c.Caption, c.Text = sim.CmdCaption, "say", strings.Join(args, ":")
	default:
		return bad("unknown action " + kind)
	}
	return c, nil
}
