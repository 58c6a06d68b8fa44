package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

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

// pbMember is etcdserverpb.Member as encoding/json writes it.
type pbMember struct {
	ID         uint64   `json:"ID,omitempty"`
	Name       string   `json:"name,omitempty"`
	PeerURLs   []string `json:"peerURLs,omitempty"`
	ClientURLs []string `json:"clientURLs,omitempty"`
	IsLearner  bool     `json:"isLearner,omitempty"`
}

func pbMembers(list []sim.ClusterMember) []pbMember {
	out := make([]pbMember, len(list))
	for i, m := range list {
		out[i] = pbMember{ID: m.ID, Name: m.Name, PeerURLs: m.PeerURLs, ClientURLs: m.ClientURLs, IsLearner: m.IsLearner}
	}
	return out
}

// memberRows is etcdctl's makeMemberListTable.
func memberRows(list []pbMember) [][]string {
	var rows [][]string
	for _, m := range list {
		status := "started"
		if m.Name == "" {
			status = "unstarted"
		}
		rows = append(rows, []string{idHex(m.ID), status, m.Name, strings.Join(m.PeerURLs, ","),
			strings.Join(m.ClientURLs, ","), strconv.FormatBool(m.IsLearner)})
	}
	return rows
}

// memberList prints the membership a member has applied, as etcdctl
// member list does: sorted by ID, a member that has not published itself
// yet shown as unstarted.
func (c *Console) memberList(args []string) error {
	f := newFlags("member list")
	f.String("consistency", "l", "Linearizable(l) or Serializable(s)")
	if _, err := f.parse(args, 0, 0, "member list [-w simple|json|table|fields] [--endpoints M]"); err != nil {
		return err
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	from, ok := c.firstReady(eps)
	if !ok {
		return fmt.Errorf("context deadline exceeded")
	}
	list, _ := c.w.MemberList(from)
	members := pbMembers(list)
	h := c.header(from, false)
	var b strings.Builder
	switch *f.writeOut {
	case "json":
		out, _ := json.Marshal(struct {
			Header  respHeader `json:"header"`
			Members []pbMember `json:"members,omitempty"`
		}{h, members})
		b.Write(out)
		b.WriteString("\n")
	case "fields":
		writeFieldsHeader(&b, h)
		for _, m := range members {
			fmt.Fprintln(&b, `"ID" :`, m.ID)
			fmt.Fprintf(&b, "\"Name\" : %q\n", m.Name)
			for _, u := range m.PeerURLs {
				fmt.Fprintf(&b, "\"PeerURL\" : %q\n", u)
			}
			for _, u := range m.ClientURLs {
				fmt.Fprintf(&b, "\"ClientURL\" : %q\n", u)
			}
			fmt.Fprintln(&b, `"IsLearner" :`, m.IsLearner)
			b.WriteString("\n")
		}
	case "table":
		t := table{header: []string{"ID", "STATUS", "NAME", "PEER ADDRS", "CLIENT ADDRS", "IS LEARNER"}, rows: memberRows(members)}
		b.WriteString(t.String())
	default:
		for _, r := range memberRows(members) {
			b.WriteString(strings.Join(r, ", ") + "\n")
		}
	}
	c.printf("%s", b.String())
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
	if err := scenarios.CheckMemberName("member add", name); err != nil {
		return err
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
		as := " "
		if *learner {
			as = " as learner "
		}
		var initial []string
		list, _ := c.w.MemberList(name)
		for _, m := range list {
			n := m.Name
			if m.ID == in.MemberID {
				n = name
			}
			for _, u := range m.PeerURLs {
				initial = append(initial, n+"="+u)
			}
		}
		c.printf("Member %16x added%sto cluster %16x\n", in.MemberID, as, c.w.ClusterID())
		c.printf("\nETCD_NAME=%q\nETCD_INITIAL_CLUSTER=%q\nETCD_INITIAL_ADVERTISE_PEER_URLS=%q\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n",
			name, strings.Join(initial, ","), in.PeerURL)
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
		}, func() { c.printf("Member %16x removed from cluster %16x\n", in.MemberID, c.w.ClusterID()) })
	}
	return c.awaitConf(func(voters, learners []string) bool { return contains(voters, name) && !contains(learners, name) },
		func() { c.printf("Member %16x promoted in cluster %16x\n", in.MemberID, c.w.ClusterID()) })
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
		c.printf("Leadership transferred from %s to %s (it leads already)\n", idHex(from.MemberID), idHex(to.MemberID))
		return nil
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdTransferLeader, Node: target}); err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(sim.DefaultClientTimeout)}
	j.poll = func() bool {
		if l, ok := c.w.Leader(); ok && l == target {
			c.printf("Leadership transferred from %s to %s\n", idHex(from.MemberID), idHex(to.MemberID))
			return true
		}
		return false
	}
	j.onDeadline = func() { c.errorf("etcdserver: request timed out, leader transfer took too long") }
	return c.start(j, false)
}
