package console

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// memberNameRE is the shape of member names that a saved session (a
// scenario) can hold.
var memberNameRE = regexp.MustCompile(`^[a-z0-9-]+$`)

// member list|add|remove|promote
func (c *Console) member(args []string, _ bool) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("member needs a subcommand: list, add, remove or promote")
	}
	switch args[0] {
	case "list":
		return c.memberList(args[1:])
	case "add":
		return c.memberAdd(args[1:])
	case "remove":
		return c.memberChange(args[1:], "remove")
	case "promote":
		return c.memberChange(args[1:], "promote")
	}
	return fmt.Errorf("unknown member subcommand %q (want list, add, remove or promote)", args[0])
}

// memberList prints the member list as the first endpoint that answers
// gives it.
func (c *Console) memberList(args []string) error {
	f := newFlags("member list")
	if _, err := f.parse(args, 0, 0, "member list [-w table|json] [--endpoints M]"); err != nil {
		return err
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	var from string
	for _, ep := range eps {
		if in, _ := c.w.Info(ep); in.Up && !in.Stalled {
			from = ep
			break
		}
	}
	if from == "" {
		return fmt.Errorf("context deadline exceeded: no endpoint answered (tried %s)", strings.Join(eps, ", "))
	}
	// etcd serves MemberList linearizably (a read through the leader), so
	// the answer is the configuration the leader has applied; a member that
	// knows no leader can only give its own.
	voters, learners, ok := c.w.Membership()
	if in, _ := c.w.Info(from); !ok || in.Lead == 0 {
		voters, learners, _ = c.w.MemberConf(from)
	}
	type row struct {
		ID        uint64   `json:"ID"`
		Name      string   `json:"name"`
		PeerURLs  []string `json:"peerURLs"`
		ClientURL []string `json:"clientURLs"`
		IsLearner bool     `json:"isLearner,omitempty"`
	}
	var rows []row
	for _, in := range c.w.Infos() {
		if contains(voters, in.Name) || contains(learners, in.Name) {
			rows = append(rows, row{ID: in.ID, Name: in.Name, PeerURLs: []string{"http://" + in.Name + ":2380"},
				ClientURL: []string{"http://" + in.Name + ":2379"}, IsLearner: contains(learners, in.Name)})
		}
	}
	switch *f.writeOut {
	case "json":
		out := struct {
			Members []row `json:"members"`
		}{rows}
		b, _ := json.Marshal(out)
		c.printf("%s\n", b)
	case "table":
		t := table{header: []string{"ID", "STATUS", "NAME", "PEER ADDRS", "CLIENT ADDRS", "IS LEARNER"}}
		for _, r := range rows {
			t.rows = append(t.rows, []string{hexID(r.ID), "started", r.Name, r.PeerURLs[0], r.ClientURL[0], strconv.FormatBool(r.IsLearner)})
		}
		c.printf("%s", t.String())
	default:
		for _, r := range rows {
			c.printf("%s, started, %s, %s, %s, %t\n", hexID(r.ID), r.Name, r.PeerURLs[0], r.ClientURL[0], r.IsLearner)
		}
	}
	return nil
}

// memberAdd proposes the new member through the leader and waits until the
// leader has applied the change, as etcd's MemberAdd does. The simulator
// starts the new member at once, empty; the leader catches it up.
func (c *Console) memberAdd(args []string) error {
	f := newFlags("member add")
	learner := f.Bool("learner", false, "add it as a learner (a non-voting member)")
	f.String("peer-urls", "", "accepted for etcdctl's sake; the simulator needs none")
	rest, err := f.parse(args, 1, 1, "member add NAME [--learner]")
	if err != nil {
		return err
	}
	name := rest[0]
	if !memberNameRE.MatchString(name) {
		return fmt.Errorf("member name %q: want lower-case letters, digits and dashes, like etcd-6", name)
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdAddMember, Node: name, Learner: *learner}); err != nil {
		return err
	}
	in, _ := c.w.Info(name)
	return c.awaitConf(func(voters, learners []string) bool {
		if *learner {
			return contains(learners, name)
		}
		return contains(voters, name)
	}, func() {
		kind := "Member"
		if *learner {
			kind = "Member (learner)"
		}
		var initial []string
		for _, m := range c.members() {
			initial = append(initial, m+"=http://"+m+":2380")
		}
		c.printf("%s %s added to cluster\n\n", kind, hexID(in.ID))
		c.printf("ETCD_NAME=%q\nETCD_INITIAL_CLUSTER=%q\nETCD_INITIAL_ADVERTISE_PEER_URLS=%q\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n",
			name, strings.Join(initial, ","), "http://"+name+":2380")
		c.printf("(the simulator has started %s already)\n", name)
	})
}

// memberChange removes or promotes a member, by ID or name.
func (c *Console) memberChange(args []string, what string) error {
	f := newFlags("member " + what)
	rest, err := f.parse(args, 1, 1, "member "+what+" ID|NAME")
	if err != nil {
		return err
	}
	name, err := c.resolve(rest[0])
	if err != nil {
		return err
	}
	voters, learners, _ := c.w.Membership()
	in, _ := c.w.Info(name)
	if in.Removed || c.removed[name] {
		return fmt.Errorf("etcdserver: member not found (%s was removed)", name)
	}
	if what == "promote" && contains(voters, name) && !contains(learners, name) {
		return fmt.Errorf("etcdserver: can only promote a learner member (%s is a voter)", name)
	}
	kind := sim.CmdRemoveMember
	if what == "promote" {
		kind = sim.CmdPromote
	}
	if _, err := c.do(sim.Command{Kind: kind, Node: name}); err != nil {
		return err
	}
	if what == "remove" {
		c.removed[name] = true
		return c.awaitConf(func(voters, learners []string) bool {
			return !contains(voters, name) && !contains(learners, name)
		}, func() { c.printf("Member %s removed from cluster\n", hexID(in.ID)) })
	}
	return c.awaitConf(func(voters, learners []string) bool { return contains(voters, name) && !contains(learners, name) },
		func() { c.printf("Member %s promoted in cluster\n", hexID(in.ID)) })
}

// awaitConf waits until the leader's configuration satisfies ok, then
// prints with done; after the request timeout it fails as etcd does.
func (c *Console) awaitConf(ok func(voters, learners []string) bool, done func()) error {
	j := &job{deadline: c.w.Now().Add(sim.DefaultClientTimeout)}
	j.poll = func() bool {
		voters, learners, have := c.w.Membership()
		if have && ok(voters, learners) {
			done()
			return true
		}
		return false
	}
	j.onDeadline = func() { c.errorf("etcdserver: request timed out") }
	return c.start(j, false)
}

// moveLeader asks the leader to hand over to the member with the ID (or
// name) and waits until it leads, as etcdctl move-leader does.
func (c *Console) moveLeader(args []string, _ bool) error {
	f := newFlags("move-leader")
	rest, err := f.parse(args, 1, 1, "move-leader ID|NAME")
	if err != nil {
		return err
	}
	target, err := c.resolve(rest[0])
	if err != nil {
		return err
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	lead, ok := c.w.Leader()
	if !ok || !contains(eps, lead) {
		return fmt.Errorf("no leader endpoint given at %v", eps)
	}
	from, _ := c.w.Info(lead)
	to, _ := c.w.Info(target)
	if lead == target {
		c.printf("Leadership transferred from %s to %s (it leads already)\n", hexID(from.ID), hexID(to.ID))
		return nil
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdTransferLeader, Node: target}); err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(sim.DefaultClientTimeout)}
	j.poll = func() bool {
		if l, ok := c.w.Leader(); ok && l == target {
			c.printf("Leadership transferred from %s to %s\n", hexID(from.ID), hexID(to.ID))
			return true
		}
		return false
	}
	j.onDeadline = func() { c.errorf("etcdserver: request timed out, leader transfer took too long") }
	return c.start(j, false)
}
