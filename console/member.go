package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// member list|add|remove|promote|update
func (c *Console) member(args []string, _ bool) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("member needs a subcommand: list, add, remove, promote or update")
	}
	switch args[0] {
	case "list":
		return c.memberList(args[1:])
	case "add":
		return c.memberAdd(args[1:])
	case "remove", "promote", "update":
		return c.memberChange(args[1:], args[0])
	}
	return fmt.Errorf("unknown member subcommand %q (want list, add, remove, promote or update)", args[0])
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

// clusterHeader is the header etcd's Cluster API puts on an answer: no
// revision.
func (c *Console) clusterHeader(op *sim.Op) *etcdserverpb.ResponseHeader {
	h := op.Header()
	return &etcdserverpb.ResponseHeader{ClusterId: h.ClusterId, MemberId: h.MemberId, RaftTerm: h.RaftTerm}
}

// memberCall sends a Cluster API call from etcdctl, as a request to one
// endpoint, and prints its answer with show (or etcdctl's error).
func (c *Console) memberCall(f *flags, cmd sim.Command, show func(op *sim.Op) string) error {
	from, err := c.via(f, "")
	if err != nil {
		return err
	}
	cmd.Via, cmd.By, cmd.Timeout = from, "etcdctl", c.timeout(f, "")
	return c.request(cmd, false, show)
}

// memberList prints the membership a member has applied, as etcdctl
// member list does (linearizable unless --consistency=s): sorted by ID, a
// member that has not published itself shown as unstarted.
func (c *Console) memberList(args []string) error {
	f := newFlags("member list")
	consistency := f.String("consistency", "l", "Linearizable(l) or Serializable(s)")
	if _, err := f.parse(args, 0, 0, "member list [--consistency=l|s] [-w simple|json|table|fields] [--endpoints M]"); err != nil {
		return err
	}
	if *consistency != "l" && *consistency != "s" {
		return fmt.Errorf("unknown consistency flag %q", *consistency)
	}
	format := *f.writeOut
	list := &etcdserverpb.MemberListRequest{Linearizable: *consistency != "s"}
	return c.memberCall(f, sim.Command{Kind: sim.CmdMemberList, Req: server.Request{MemberList: list}}, func(op *sim.Op) string {
		members := pbMembers(op.Members())
		h := c.clusterHeader(op)
		var b strings.Builder
		switch format {
		case "json":
			out, _ := json.Marshal(struct {
				Header  *etcdserverpb.ResponseHeader `json:"header"`
				Members []pbMember                   `json:"members,omitempty"`
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
		return b.String()
	})
}

// memberAdd is etcdctl member add NAME --peer-urls=URL [--learner]: a
// Cluster API call, answered once the member asked has applied the change.
// As in etcd, the new member does not run until it is started (the start
// verb): etcdctl prints the settings to start it with.
func (c *Console) memberAdd(args []string) error {
	f := newFlags("member add")
	learner := f.Bool("learner", false, "indicates if the new member is raft learner")
	peerURLs := f.String("peer-urls", "", "comma separated peer URLs for the new member.")
	rest, err := f.parse(args, 0, -1, "member add NAME --peer-urls=URL [--learner]")
	if err != nil {
		return err
	}
	switch {
	case len(rest) == 0:
		return fmt.Errorf("member name not provided")
	case len(rest) > 1:
		ev := "too many arguments"
		for _, s := range rest {
			if strings.HasPrefix(strings.ToLower(s), "http") {
				ev += ", did you mean --peer-urls=" + s
			}
		}
		return fmt.Errorf("%s", ev)
	}
	name := rest[0]
	if err := scenarios.CheckMemberName("member add", name); err != nil {
		return err // the simulator's rule for names, before etcdctl's checks
	}
	switch {
	case *peerURLs == "":
		return fmt.Errorf("member peer urls not provided")
	case membership.CheckURLs(strings.Split(*peerURLs, ",")) != nil:
		return membership.CheckURLs(strings.Split(*peerURLs, ",")) // clientv3 checks them before it sends
	case strings.Contains(*peerURLs, ","):
		return fmt.Errorf("a simulated member advertises one peer URL, not %q", *peerURLs)
	}
	format := *f.writeOut
	cmd := sim.Command{Kind: sim.CmdAddMember, Node: name, Learner: *learner, PeerURL: *peerURLs}
	return c.memberCall(f, cmd, func(op *sim.Op) string {
		if msg, bad := printerUnsupported(format); bad {
			return msg
		}
		in, _ := c.w.Info(name)
		added := pbMember{ID: in.MemberID, PeerURLs: []string{in.PeerURL}, IsLearner: *learner}
		members := pbMembers(op.Members())
		var b strings.Builder
		if format == "json" {
			out, _ := json.Marshal(struct {
				Header  *etcdserverpb.ResponseHeader `json:"header"`
				Member  pbMember                     `json:"member"`
				Members []pbMember                   `json:"members,omitempty"`
			}{c.clusterHeader(op), added, members})
			b.Write(out)
			b.WriteString("\n")
			return b.String()
		}
		as := " "
		if *learner {
			as = " as learner "
		}
		fmt.Fprintf(&b, "Member %16x added%sto cluster %16x\n", added.ID, as, c.w.ClusterID())
		var conf []string
		for _, m := range members {
			n := m.Name
			if m.ID == added.ID {
				n = name
			}
			for _, u := range m.PeerURLs {
				conf = append(conf, n+"="+u)
			}
		}
		fmt.Fprintf(&b, "\nETCD_NAME=%q\nETCD_INITIAL_CLUSTER=%q\nETCD_INITIAL_ADVERTISE_PEER_URLS=%q\nETCD_INITIAL_CLUSTER_STATE=\"existing\"\n",
			name, strings.Join(conf, ","), *peerURLs)
		return b.String()
	})
}

// memberChange is etcdctl member remove|promote|update ID: the member by
// hex ID, as etcdctl takes it (or by name).
func (c *Console) memberChange(args []string, what string) error {
	f := newFlags("member " + what)
	var peerURLs *string
	if what == "update" {
		peerURLs = f.String("peer-urls", "", "comma separated peer URLs for the updated member.")
	}
	rest, err := f.parse(args, 0, -1, "member "+what+" ID")
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("member ID is not provided")
	}
	if what == "update" && *peerURLs == "" {
		return fmt.Errorf("member peer urls not provided")
	}
	name, err := c.resolve(rest[0])
	if what == "update" && err == nil {
		// clientv3 checks the URLs before it sends (the server does not).
		if err := membership.CheckURLs(strings.Split(*peerURLs, ",")); err != nil {
			return err
		}
		if strings.Contains(*peerURLs, ",") {
			return fmt.Errorf("a simulated member advertises one peer URL, not %q", *peerURLs)
		}
	}
	if err != nil {
		if _, perr := strconv.ParseUint(rest[0], 16, 64); perr != nil {
			return fmt.Errorf("bad member ID arg (%v), expecting ID in Hex", perr)
		}
		return fmt.Errorf("etcdserver: member not found")
	}
	format := *f.writeOut
	in, _ := c.w.Info(name)
	cmd := sim.Command{Node: name}
	word := map[string]string{"remove": "removed from", "promote": "promoted in", "update": "updated in"}[what]
	switch what {
	case "remove":
		cmd.Kind = sim.CmdRemoveMember
	case "promote":
		cmd.Kind = sim.CmdPromote
	default:
		cmd.Kind, cmd.PeerURL = sim.CmdUpdateMember, *peerURLs
	}
	return c.memberCall(f, cmd, func(op *sim.Op) string {
		if msg, bad := printerUnsupported(format); bad {
			return msg
		}
		if format == "json" {
			out, _ := json.Marshal(struct {
				Header  *etcdserverpb.ResponseHeader `json:"header"`
				Members []pbMember                   `json:"members,omitempty"`
			}{c.clusterHeader(op), pbMembers(op.Members())})
			return string(out) + "\n"
		}
		return fmt.Sprintf("Member %16x %s cluster %16x\n", in.MemberID, word, c.w.ClusterID())
	})
}

// moveLeader is etcdctl move-leader ID: it asks each endpoint in turn for
// its status until it finds the leader, and asks the leader to hand over;
// the leader refuses a learner (or a stranger) at once, and otherwise
// answers once the transferee leads.
func (c *Console) moveLeader(args []string, _ bool) error {
	f := newFlags("move-leader")
	rest, err := f.parse(args, 0, -1, "move-leader ID")
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("move-leader command needs 1 argument")
	}
	target, err := c.resolve(rest[0])
	if err != nil {
		if _, perr := strconv.ParseUint(rest[0], 16, 64); perr != nil {
			return fmt.Errorf("bad leader ID arg (%v), expecting ID in Hex", perr)
		}
		target = ""
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	format := *f.writeOut
	lead := ""
	for _, ep := range eps {
		if !c.answers(ep) {
			var b strings.Builder
			c.failedCall(&b, "etcd-client", ep, "/etcdserverpb.Maintenance/Status", "status")
			// etcdctl gives up at the first endpoint that does not answer.
			if err := c.letPass("move-leader", *f.commandTimeout); err != nil {
				return err
			}
			out := b.String()
			c.printf("%s", out[:strings.Index(out, "\n")+1])
			return fmt.Errorf("context deadline exceeded")
		}
		if in, _ := c.w.Info(ep); in.Role == sim.RoleLeader {
			lead = ep
			break
		}
	}
	if lead == "" {
		return fmt.Errorf("no leader endpoint given at %v", c.epLabelList(eps))
	}
	from, _ := c.w.Info(lead)
	to, _ := c.w.Info(target)
	if err := c.w.CheckTransferee(target); err != "" {
		var b strings.Builder
		c.clientWarn(&b, "etcd-client", c.label(lead), peerOf(c.hostPort(lead)), "/etcdserverpb.Maintenance/MoveLeader",
			"rpc error: code = FailedPrecondition desc = "+err)
		c.printf("%s", b.String())
		return fmt.Errorf("%s", err)
	}
	done := func() {
		if msg, bad := printerUnsupported(format); bad {
			c.printf("%s", msg)
			return
		}
		if format == "json" {
			out, _ := json.Marshal(struct {
				Header *etcdserverpb.ResponseHeader `json:"header"`
			}{&etcdserverpb.ResponseHeader{ClusterId: c.w.ClusterID(), MemberId: from.MemberID, Revision: c.header(lead, true).Revision, RaftTerm: from.Term}})
			c.printf("%s\n", out)
			return
		}
		c.printf("Leadership transferred from %s to %s\n", idHex(from.MemberID), idHex(to.MemberID))
	}
	if lead == target {
		done()
		return nil
	}
	if _, err := c.do(sim.Command{Kind: sim.CmdTransferLeader, Node: target}); err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(*f.commandTimeout)}
	j.poll = func() bool {
		if l, ok := c.w.Leader(); ok && l == target {
			done()
			return true
		}
		return false
	}
	j.onDeadline = func() {
		var b strings.Builder
		c.clientWarn(&b, "etcd-client", c.label(lead), peerOf(c.hostPort(lead)), "/etcdserverpb.Maintenance/MoveLeader", deadlineErr)
		c.printf("%s", b.String())
		c.errorf("context deadline exceeded")
	}
	return c.start(j, false)
}

// epLabelList is how etcdctl prints its endpoints in an error: a Go slice.
func (c *Console) epLabelList(eps []string) []string {
	var out []string
	for _, ep := range eps {
		out = append(out, c.label(ep))
	}
	return out
}

// printerUnsupported is etcdctl's error for an output format that has no
// printer for a Cluster or Maintenance answer. etcdctl finds out only when
// it prints the answer, after the call has done its work.
func printerUnsupported(format string) (string, bool) {
	if format != "table" && format != "fields" {
		return "", false
	}
	return "Error: " + unsupportedFormat(format).Error() + "\n", true
}

// alarm list | alarm disarm
func (c *Console) alarm(args []string, _ bool) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "disarm") {
		return fmt.Errorf("alarm needs a subcommand: list or disarm")
	}
	f := newFlags("alarm " + args[0])
	if _, err := f.parse(args[1:], 0, 0, "alarm "+args[0]); err != nil {
		return err
	}
	format := *f.writeOut
	kind := sim.CmdAlarmList
	if args[0] == "disarm" {
		kind = sim.CmdAlarmDisarm
	}
	return c.memberCall(f, sim.Command{Kind: kind}, func(op *sim.Op) string {
		h := op.Header()
		switch format {
		case "json":
			out, _ := json.Marshal(struct {
				Header *etcdserverpb.ResponseHeader `json:"header"`
				Alarms []*etcdserverpb.AlarmMember  `json:"alarms,omitempty"`
			}{h, op.Alarms()})
			return string(out) + "\n"
		case "fields":
			var b strings.Builder
			writeFieldsHeader(&b, h)
			for _, a := range op.Alarms() {
				fmt.Fprintln(&b, `"MemberID" :`, a.MemberID)
				fmt.Fprintln(&b, `"AlarmType" :`, a.Alarm)
			}
			return b.String()
		case "table":
			msg, _ := printerUnsupported(format)
			return msg
		}
		var b strings.Builder
		for _, a := range op.Alarms() {
			b.WriteString(server.AlarmString(a) + "\n")
		}
		return b.String()
	})
}
