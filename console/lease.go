package console

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// lease grant|revoke|timetolive|keep-alive|list: etcdctl lease.
func (c *Console) lease(args []string, bg bool) error {
	if len(args) == 0 {
		return fmt.Errorf("lease needs a subcommand: grant, revoke, timetolive, keep-alive or list")
	}
	sub, args := args[0], args[1:]
	f := newFlags("lease " + sub)
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	keys := f.Bool("keys", false, "Get keys attached to this lease")
	once := f.Bool("once", false, "Resets the keep-alive time to its original value and exits immediately")
	forFlag := f.String("for", "", "keep-alive: keep the lease alive for this much virtual time")
	rest, err := f.parse(args, 0, -1, "lease grant TTL | revoke ID | timetolive ID [--keys] | keep-alive [--once] ID | list")
	if err != nil {
		return err
	}
	format := *f.writeOut
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	cmd := sim.Command{Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via)}
	leaseArg := func(what string) (int64, error) {
		if len(rest) != 1 {
			return 0, fmt.Errorf("%s", what)
		}
		id, err := strconv.ParseInt(rest[0], 16, 64)
		if err != nil {
			return 0, fmt.Errorf("bad lease ID arg (%w), expecting ID in Hex", err)
		}
		return id, nil
	}
	switch sub {
	case "grant":
		if len(rest) != 1 {
			return fmt.Errorf("lease grant command needs TTL argument")
		}
		ttl, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil {
			return fmt.Errorf("bad TTL (%w)", err)
		}
		cmd.Kind, cmd.Req.LeaseGrant = sim.CmdLeaseGrant, &etcdserverpb.LeaseGrantRequest{TTL: ttl}
		return c.leaseRequest(cmd, bg, "failed to grant lease (%s)", func(op *sim.Op) string { return formatGrant(op, format) })
	case "revoke":
		id, err := leaseArg("lease revoke command needs 1 argument")
		if err != nil {
			return err
		}
		cmd.Kind, cmd.Req.LeaseRevoke = sim.CmdLeaseRevoke, &etcdserverpb.LeaseRevokeRequest{ID: id}
		return c.leaseRequest(cmd, bg, "failed to revoke lease (%s)", func(op *sim.Op) string { return formatRevoke(op, id, format) })
	case "timetolive":
		id, err := leaseArg("lease timetolive command needs lease ID as argument")
		if err != nil {
			return err
		}
		cmd.Kind, cmd.Req.LeaseTimeToLive = sim.CmdLeaseTimeToLive, &etcdserverpb.LeaseTimeToLiveRequest{ID: id, Keys: *keys}
		return c.leaseRequest(cmd, bg, "%s", func(op *sim.Op) string { return formatTimeToLive(op, *keys, format) })
	case "list":
		cmd.Kind, cmd.Req.LeaseLeases = sim.CmdLeaseList, &etcdserverpb.LeaseLeasesRequest{}
		return c.leaseRequest(cmd, bg, "%s", func(op *sim.Op) string { return formatLeases(op, format) })
	case "keep-alive":
		id, err := leaseArg("lease keep-alive command needs lease ID as argument")
		if err != nil {
			return err
		}
		cmd.Kind, cmd.Req.LeaseKeepAlive = sim.CmdLeaseKeepAlive, &etcdserverpb.LeaseKeepAliveRequest{ID: id}
		if *once {
			return c.leaseRequest(cmd, bg, "%s", func(op *sim.Op) string { return formatKeepAlive(op.Resp.LeaseKeepAlive, format) })
		}
		return c.keepAlive(cmd, id, format, f.Changed("for"), *forFlag, bg)
	}
	return fmt.Errorf("unknown lease subcommand %q (want grant, revoke, timetolive, keep-alive or list)", sub)
}

// leaseRequest sends a lease request and prints its answer, or its error
// the way etcdctl words it (errf wraps the error text).
func (c *Console) leaseRequest(cmd sim.Command, bg bool, errf string, show func(*sim.Op) string) error {
	return c.requestWith(cmd, bg, show, func(op *sim.Op) string { return "Error: " + fmt.Sprintf(errf, op.Err) + "\n" })
}

// keepAlive: etcdctl lease keep-alive ID, a stream of keep-alives (every
// TTL/3, as clientv3 sends them) until the lease is gone, or until
// interrupted or --for has passed.
func (c *Console) keepAlive(cmd sim.Command, id int64, format string, bounded bool, forText string, bg bool) error {
	var d time.Duration
	if bounded {
		var err error
		if d, err = duration(forText, "--for"); err != nil {
			return err
		}
		if err := c.checkRunTime("lease keep-alive --for", d); err != nil {
			return err
		}
	}
	if c.opts.Mode == Async {
		bg = true
	}
	if !bg && d == 0 && c.opts.Mode == Blocking && !c.opts.Interactive {
		return fmt.Errorf("a keep-alive never ends by itself while the lease lives, and a script cannot press Ctrl-C: add --for DUR, or & to run it in the background")
	}
	cmd.Repeat = true
	cmd.Label = fmt.Sprintf("keepalive-%d", c.w.OpCount()+1)
	op, err := c.do(cmd)
	if err != nil {
		return err
	}
	j := &job{watch: cmd.Label}
	printed := 0
	j.poll = func() bool {
		for ; printed < len(op.KeepAlives()); printed++ {
			c.output(j, formatKeepAlive(op.KeepAlives()[printed], format))
		}
		if op.Canceled {
			return true
		}
		if op.Status == sim.OpError {
			if format == "simple" {
				c.output(j, fmt.Sprintf("lease %016x expired or revoked.\n", id))
			}
			return true
		}
		return false
	}
	if d > 0 {
		j.deadline = c.w.Now().Add(d)
	}
	if bg {
		c.nextJob++
		j.id, j.background = c.nextJob, true
		c.jobs = append(c.jobs, j)
		c.printf("[%d] keeping lease %016x alive in the background (stop it with: unwatch %d)\n", j.id, id, j.id)
		return nil
	}
	return c.stream(j)
}

// The lease verbs print clientv3's lease responses, which embed etcd's
// response header and name their fields themselves.

func formatGrant(op *sim.Op, format string) string {
	r := op.Resp.LeaseGrant
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(struct {
			*etcdserverpb.ResponseHeader
			ID    int64
			TTL   int64
			Error string
		}{r.Header, r.ID, r.TTL, ""})
	case "fields":
		var p fieldsPrinter
		p.hdr(r.Header)
		p.line("ID", r.ID)
		p.line("TTL", r.TTL)
		return p.b.String()
	}
	return fmt.Sprintf("lease %016x granted with TTL(%ds)\n", r.ID, r.TTL)
}

func formatRevoke(op *sim.Op, id int64, format string) string {
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(op.Resp.LeaseRevoke)
	case "fields":
		var p fieldsPrinter
		p.hdr(op.Header())
		return p.b.String()
	}
	return fmt.Sprintf("lease %016x revoked\n", id)
}

func formatKeepAlive(r *etcdserverpb.LeaseKeepAliveResponse, format string) string {
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(struct {
			*etcdserverpb.ResponseHeader
			ID  int64
			TTL int64
		}{r.Header, r.ID, r.TTL})
	case "fields":
		var p fieldsPrinter
		p.hdr(r.Header)
		p.line("ID", r.ID)
		p.line("TTL", r.TTL)
		return p.b.String()
	}
	return fmt.Sprintf("lease %016x keepalived with TTL(%d)\n", r.ID, r.TTL)
}

func formatTimeToLive(op *sim.Op, keys bool, format string) string {
	r := op.Resp.LeaseTimeToLive
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(struct {
			*etcdserverpb.ResponseHeader
			ID         int64    `json:"id"`
			TTL        int64    `json:"ttl"`
			GrantedTTL int64    `json:"granted-ttl"`
			Keys       [][]byte `json:"keys"`
		}{r.Header, r.ID, r.TTL, r.GrantedTTL, r.Keys})
	case "fields":
		var p fieldsPrinter
		p.hdr(r.Header)
		p.line("ID", r.ID)
		p.line("TTL", r.TTL)
		p.line("GrantedTTL", r.GrantedTTL)
		for _, k := range r.Keys {
			fmt.Fprintf(&p.b, "\"Key\" : %q\n", k)
		}
		return p.b.String()
	}
	if r.GrantedTTL == 0 && r.TTL == -1 {
		return fmt.Sprintf("lease %016x already expired\n", r.ID)
	}
	s := fmt.Sprintf("lease %016x granted with TTL(%ds), remaining(%ds)", r.ID, r.GrantedTTL, r.TTL)
	if keys {
		ks := make([]string, len(r.Keys))
		for i, k := range r.Keys {
			ks[i] = string(k)
		}
		s += fmt.Sprintf(", attached keys(%v)", ks)
	}
	return s + "\n"
}

func formatLeases(op *sim.Op, format string) string {
	r := op.Resp.LeaseLeases
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		type status struct {
			ID int64 `json:"id"`
		}
		ls := make([]status, len(r.Leases))
		for i, l := range r.Leases {
			ls[i].ID = l.ID
		}
		return jsonMarshal(struct {
			*etcdserverpb.ResponseHeader
			Leases []status `json:"leases"`
		}{r.Header, ls})
	case "fields":
		var p fieldsPrinter
		p.hdr(r.Header)
		for _, l := range r.Leases {
			p.line("ID", l.ID)
		}
		return p.b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "found %d leases\n", len(r.Leases))
	for _, l := range r.Leases {
		fmt.Fprintf(&b, "%016x\n", l.ID)
	}
	return b.String()
}

// compaction REV: etcdctl compaction.
func (c *Console) compaction(args []string, bg bool) error {
	f := newFlags("compaction")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	physical := f.Bool("physical", false, "'true' to wait for compaction to physically remove all old revisions")
	rest, err := f.parse(args, 0, -1, "compaction REV [--physical]")
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("compaction command needs 1 argument")
	}
	rev, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil {
		return err
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	return c.request(sim.Command{Kind: sim.CmdCompact, Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via),
		Req: server.Request{Compaction: &etcdserverpb.CompactionRequest{Revision: rev, Physical: *physical}}}, bg,
		func(*sim.Op) string { return fmt.Sprintf("compacted revision %d\n", rev) })
}
