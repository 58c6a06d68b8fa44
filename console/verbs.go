package console

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// verb is one console command: the etcdctl ones first, then the simulator's.
type verb struct {
	name string
	sim  bool // a simulator verb, not an etcdctl one
	run  func(c *Console, args []string, bg bool) error
	// bg says the verb may run in the background with a trailing &.
	bg bool
}

var verbs []verb

func init() {
	verbs = []verb{
		{name: "put", run: (*Console).put, bg: true},
		{name: "get", run: (*Console).get, bg: true},
		{name: "del", run: (*Console).del, bg: true},
		{name: "watch", run: (*Console).watch, bg: true},
		{name: "txn", run: (*Console).txnVerb},
		{name: "lease", run: (*Console).lease, bg: true},
		{name: "compaction", run: (*Console).compaction, bg: true},
		{name: "load", run: (*Console).load, bg: true},
		{name: "endpoint", run: (*Console).endpoint},
		{name: "member", run: (*Console).member},
		{name: "move-leader", run: (*Console).moveLeader},
		{name: "snapshot", run: (*Console).snapshot},
		{name: "version", run: (*Console).version},
		{name: "alarm", run: (*Console).alarm},
		{name: "etcdutl", run: (*Console).etcdutl},
		{name: "defrag", run: (*Console).defrag},
		{name: "user", run: (*Console).userVerb}, // auth.go
		{name: "role", run: (*Console).roleVerb},
		{name: "auth", run: (*Console).authVerb},
		{name: "downgrade", run: (*Console).downgradeVerb},

		{name: "tick", sim: true, run: (*Console).tick},
		{name: "wait", sim: true, run: (*Console).waitVerb},
		{name: "crash", sim: true, run: (*Console).crash},
		{name: "restart", sim: true, run: (*Console).restart},
		{name: "start", sim: true, run: (*Console).startVerb},
		{name: "lose", sim: true, run: (*Console).lose},
		{name: "stall", sim: true, run: (*Console).stall},
		{name: "clock", sim: true, run: (*Console).clock},
		{name: "partition", sim: true, run: (*Console).partition},
		{name: "isolate", sim: true, run: (*Console).isolate},
		{name: "cut", sim: true, run: (*Console).cut},
		{name: "restore", sim: true, run: (*Console).restore},
		{name: "link", sim: true, run: (*Console).link},
		{name: "heal", sim: true, run: (*Console).heal},
		{name: "campaign", sim: true, run: (*Console).campaign},
		{name: "raft-snapshot", sim: true, run: (*Console).raftSnapshot},
		{name: "say", sim: true, run: (*Console).say},
		{name: "status", sim: true, run: (*Console).status},
		{name: "trace", sim: true, run: (*Console).traceVerb},
		{name: "save", sim: true, run: (*Console).save},
		{name: "unwatch", sim: true, run: (*Console).unwatch},
		{name: "help", sim: true, run: (*Console).help},
		{name: "exit", sim: true, run: func(*Console, []string, bool) error { return ErrQuit }},
		{name: "quit", sim: true, run: func(*Console, []string, bool) error { return ErrQuit }},
	}
}

func findVerb(name string) *verb {
	for i := range verbs {
		if verbs[i].name == name {
			return &verbs[i]
		}
	}
	return nil
}

func (c *Console) dispatch(args []string, bg bool) error {
	name := args[0]
	if name == "etcdctl" && len(args) > 1 { // people type it out of habit
		name, args = args[1], args[1:]
	}
	rest, user, err := takeUser(args[1:])
	if err != nil {
		return err
	}
	args, c.user = append([]string{args[0]}, rest...), user
	defer func() { c.user = "" }()
	v := findVerb(name)
	if v == nil {
		hint := ""
		if s := suggest(name); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return fmt.Errorf("unknown command %q%s; type help for the list", name, hint)
	}
	if bg && !v.bg {
		return fmt.Errorf("%s cannot run in the background (only put, get, del, watch, lease, compaction and load can end with &)", name)
	}
	return v.run(c, args[1:], bg)
}

// suggest returns the verb that name is most likely a typo of.
func suggest(name string) string {
	for _, v := range verbs {
		if strings.HasPrefix(v.name, name) || strings.HasPrefix(name, v.name) {
			return v.name
		}
	}
	switch name {
	case "delete", "rm":
		return "del"
	case "members":
		return "member"
	case "sleep":
		return "wait"
	}
	return ""
}

// members returns the members that have not been removed, in ID order.
func (c *Console) members() []string {
	var out []string
	for _, in := range c.w.Infos() {
		if !in.Removed && !c.removed[in.Name] {
			out = append(out, in.Name)
		}
	}
	return out
}

// resolve resolves a member reference: a name, an endpoint as etcdctl's
// --endpoints takes it (the member's client URL, with or without its
// scheme, or http://NAME:2379), a hex member ID as etcdctl prints them, or
// @leader / @follower.
func (c *Console) resolve(ref string) (string, error) {
	switch ref {
	case "@leader":
		if l, ok := c.w.Leader(); ok {
			return l, nil
		}
		return "", fmt.Errorf("@leader: there is no leader now")
	case "@follower":
		for _, in := range c.w.Infos() {
			if in.Up && in.Role == sim.RoleFollower {
				return in.Name, nil
			}
		}
		return "", fmt.Errorf("@follower: no member is a follower now")
	}
	if _, ok := c.w.Info(ref); ok {
		return ref, nil
	}
	for _, in := range c.w.Infos() {
		if ref == in.ClientURL || "http://"+ref == in.ClientURL || "https://"+ref == in.ClientURL {
			return in.Name, nil
		}
	}
	if name := endpointName(ref); name != ref {
		if _, ok := c.w.Info(name); ok {
			return name, nil
		}
	}
	if id, err := strconv.ParseUint(ref, 16, 64); err == nil {
		for _, in := range c.w.Infos() {
			if in.MemberID == id {
				return in.Name, nil
			}
		}
	}
	return "", fmt.Errorf("no member named %q (members: %s)", ref, strings.Join(c.w.MemberNames(), ", "))
}

// endpointName turns http://etcd-1:2379 into etcd-1.
func endpointName(ep string) string {
	ep = strings.TrimPrefix(strings.TrimPrefix(ep, "http://"), "https://")
	if i := strings.LastIndexByte(ep, ':'); i > 0 {
		ep = ep[:i]
	}
	return ep
}

// endpoints returns the members named by --endpoints, or every member. As
// etcdctl does, output names each endpoint as it was given (label).
func (c *Console) endpoints(f *flags) ([]string, error) {
	c.epLabels = map[string]string{}
	c.firstEndpoint = ""
	if *f.endpoints == "" {
		eps := c.members()
		if len(eps) > 0 {
			c.firstEndpoint = eps[0]
		}
		return eps, nil
	}
	var out []string
	for _, ep := range strings.Split(*f.endpoints, ",") {
		ep = strings.TrimSpace(ep)
		if ep == "" {
			continue
		}
		name, err := c.resolve(ep)
		if err != nil {
			return nil, fmt.Errorf("--endpoints: %v", err)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
			c.epLabels[name] = ep
		}
		if c.firstEndpoint == "" {
			c.firstEndpoint = ep
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--endpoints: no endpoint given")
	}
	return out, nil
}

// label is how output names the endpoint of a member: as the last
// --endpoints gave it, or by its name.
func (c *Console) label(name string) string {
	if l, ok := c.epLabels[name]; ok {
		return l
	}
	return name
}

// via picks who sends a key request: --via names a client (a
// kube-apiserver) or a member's local client; otherwise etcdctl talks to
// the first of its endpoints that is up, as clientv3's balancer skips
// endpoints whose connection is refused.
func (c *Console) via(f *flags, via string) (string, error) {
	if via != "" {
		if *f.endpoints != "" {
			return "", fmt.Errorf("give --via or --endpoints, not both")
		}
		for _, cl := range c.w.Clients() {
			if cl.Name == via {
				return via, nil
			}
		}
		if name, err := c.resolve(via); err == nil {
			return name, nil
		}
		var names []string
		for _, cl := range c.w.Clients() {
			names = append(names, cl.Name)
		}
		return "", fmt.Errorf("--via: no client or member named %q (clients: %s)", via, strings.Join(names, ", "))
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return "", err
	}
	if len(eps) == 0 {
		return "", fmt.Errorf("no members left to talk to")
	}
	for _, ep := range eps {
		if in, _ := c.w.Info(ep); in.Up {
			return ep, nil
		}
	}
	return eps[0], nil
}

// sender names who sends a key request: the console itself (etcdctl),
// unless --via named a client or member to send it from.
func (c *Console) sender(via string) string {
	if via != "" {
		return ""
	}
	return "etcdctl"
}

// timeout is the deadline of a key request: etcdctl's --command-timeout,
// unless --via sends it from a client with its own.
func (c *Console) timeout(f *flags, via string) time.Duration {
	if via != "" {
		return 0
	}
	return *f.commandTimeout
}

// defaultCommandTimeout is etcdctl's default --command-timeout: its
// requests give up after 5s, before etcd's own 7s request timeout.
const defaultCommandTimeout = 5 * time.Second

// hexID formats a member ID as etcd does.
func hexID(id uint64) string { return strconv.FormatUint(id, 16) }
