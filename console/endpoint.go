package console

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// endpoint health|status|hashkv [--cluster] [-w simple|json|table|fields]
func (c *Console) endpoint(args []string, _ bool) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("endpoint needs a subcommand: health, status or hashkv (usage: endpoint health|status|hashkv [--cluster] [-w simple|json|table|fields])")
	}
	sub := args[0]
	switch sub {
	case "health", "status", "hashkv":
	default:
		return fmt.Errorf("unknown endpoint subcommand %q (want health, status or hashkv)", sub)
	}
	f := newFlags("endpoint " + sub)
	cluster := f.Bool("cluster", false, "use all endpoints from the cluster member list")
	rev := f.Int64("rev", 0, "maximum revision to hash (default: latest revision)")
	if _, err := f.parse(args[1:], 0, 0, "endpoint "+sub+" [--cluster] [-w simple|json|table|fields] [--endpoints M]"); err != nil {
		return err
	}
	eps, err := c.endpoints(f)
	if err != nil {
		return err
	}
	if *cluster {
		if eps, err = c.clusterEndpoints(eps); err != nil {
			return err
		}
	}
	switch sub {
	case "health":
		return c.endpointHealth(eps, f)
	case "status":
		return c.endpointStatus(eps, f)
	}
	return c.endpointHashKV(eps, f, *rev)
}

// clusterEndpoints asks a member for the member list and uses every
// member's client URL, as etcdctl --cluster does.
func (c *Console) clusterEndpoints(eps []string) ([]string, error) {
	from, ok := c.firstReady(eps)
	if !ok {
		return nil, fmt.Errorf("failed to fetch endpoints from etcd cluster member list: context deadline exceeded")
	}
	list, _ := c.w.MemberList(from)
	var out []string
	c.epLabels = map[string]string{}
	for _, m := range list {
		for _, u := range m.ClientURLs {
			name, err := c.resolve(u)
			if err != nil {
				continue
			}
			out = append(out, name)
			c.epLabels[name] = u
		}
	}
	return out, nil
}

// firstReady returns the first endpoint a fresh etcdctl can talk to: a
// member that is up, not frozen and serving clients.
func (c *Console) firstReady(eps []string) (string, bool) {
	for _, ep := range eps {
		if c.answers(ep) {
			return ep, true
		}
	}
	return "", false
}

// answers reports whether a member answers an RPC now: it is up, not
// frozen, and serving clients (etcd serves none before it has published
// itself).
func (c *Console) answers(name string) bool {
	in, ok := c.w.Info(name)
	return ok && in.Up && !in.Stalled && in.Ready
}

// perEndpoint runs do on each endpoint in turn, as etcdctl's status and
// hashkv do. An endpoint that does not answer costs the command timeout,
// after which fail reports it; the rest are read when their turn comes.
func (c *Console) perEndpoint(eps []string, f *flags, do func(ep string), fail func(ep string), done func()) error {
	i := 0
	j := &job{}
	j.poll = func() bool {
		for i < len(eps) {
			ep := eps[i]
			if j.wake == 0 && c.answers(ep) {
				do(ep)
				i++
				continue
			}
			if j.wake == 0 {
				j.wake = c.w.Now().Add(*f.commandTimeout)
			}
			if c.w.Now() < j.wake {
				return false
			}
			fail(ep)
			j.wake = 0
			i++
		}
		done()
		return true
	}
	return c.start(j, false)
}

// failedCall writes what etcdctl writes when a call to one endpoint timed
// out: clientv3's log line, and its own line.
func (c *Console) failedCall(b *strings.Builder, logger, ep, method, what string) {
	in, _ := c.w.Info(ep)
	err := deadlineErr
	if !in.Up {
		err = refusedErr(c.hostPort(ep)) // it refused the connection until the deadline
	}
	c.clientWarn(b, logger, c.label(ep), peerNone, method, err)
	fmt.Fprintf(b, "Failed to get the %s of endpoint %s (context deadline exceeded)\n", what, c.label(ep))
}

// statusResponse is etcdserverpb.StatusResponse as encoding/json writes it.
type statusResponse struct {
	Header           *etcdserverpb.ResponseHeader `json:"header"`
	Version          string                       `json:"version,omitempty"`
	DbSize           int64                        `json:"dbSize,omitempty"`
	Leader           uint64                       `json:"leader,omitempty"`
	RaftIndex        uint64                       `json:"raftIndex,omitempty"`
	RaftTerm         uint64                       `json:"raftTerm,omitempty"`
	RaftAppliedIndex uint64                       `json:"raftAppliedIndex,omitempty"`
	Errors           []string                     `json:"errors,omitempty"`
	DbSizeInUse      int64                        `json:"dbSizeInUse,omitempty"`
	IsLearner        bool                         `json:"isLearner,omitempty"`
	StorageVersion   string                       `json:"storageVersion,omitempty"`
	DbSizeQuota      int64                        `json:"dbSizeQuota,omitempty"`
	DowngradeInfo    struct {
		Enabled       bool   `json:"enabled,omitempty"`
		TargetVersion string `json:"targetVersion,omitempty"`
	} `json:"downgradeInfo"`
}

type epStatus struct {
	Ep   string         `json:"Endpoint"`
	Resp statusResponse `json:"Status"`
}

// memberStatus is what a member answers to a Status call: its own view, read at
// once (a status call is served locally, with no consensus).
func (c *Console) memberStatus(name string) statusResponse {
	s, _ := c.w.Status(name)
	r := statusResponse{Header: c.header(name, true), Version: s.Version, DbSize: s.DbSize, Leader: s.Leader,
		RaftIndex: s.RaftIndex, RaftTerm: s.RaftTerm, RaftAppliedIndex: s.RaftAppliedIndex, Errors: s.Errors,
		DbSizeInUse: s.DbSizeInUse, IsLearner: s.IsLearner, StorageVersion: s.StorageVersion, DbSizeQuota: s.DbSizeQuota}
	if d := s.DowngradeInfo; d != nil {
		r.DowngradeInfo.Enabled, r.DowngradeInfo.TargetVersion = d.Enabled, d.TargetVersion
	}
	return r
}

func (c *Console) endpointStatus(eps []string, f *flags) error {
	format := *f.writeOut
	var b strings.Builder
	var rs []epStatus
	return c.perEndpoint(eps, f,
		func(ep string) { rs = append(rs, epStatus{Ep: c.label(ep), Resp: c.memberStatus(ep)}) },
		func(ep string) { c.failedCall(&b, "etcd-client", ep, "/etcdserverpb.Maintenance/Status", "status") },
		func() {
			switch format {
			case "json":
				out, _ := json.Marshal(rs)
				b.Write(out)
				b.WriteString("\n")
			case "fields":
				for _, r := range rs {
					s := r.Resp
					writeFieldsHeader(&b, s.Header)
					fmt.Fprintf(&b, "\"Version\" : %q\n", s.Version)
					fmt.Fprintf(&b, "\"StorageVersion\" : %q\n", s.StorageVersion)
					fmt.Fprintln(&b, `"DBSize" :`, s.DbSize)
					fmt.Fprintln(&b, `"DBSizeInUse" :`, s.DbSizeInUse)
					fmt.Fprintln(&b, `"DBSizeQuota" :`, s.DbSizeQuota)
					fmt.Fprintln(&b, `"Leader" :`, s.Leader)
					fmt.Fprintln(&b, `"IsLearner" :`, s.IsLearner)
					fmt.Fprintln(&b, `"RaftIndex" :`, s.RaftIndex)
					fmt.Fprintln(&b, `"RaftAppliedIndex" :`, s.RaftAppliedIndex)
					fmt.Fprintln(&b, `"Errors" :`, fmt.Sprint(errorsOrEmpty(s.Errors)))
					fmt.Fprintf(&b, "\"Endpoint\" : %q\n", r.Ep)
					fmt.Fprintf(&b, "\"DowngradeTargetVersion\" : %q\n", s.DowngradeInfo.TargetVersion)
					fmt.Fprintln(&b, `"DowngradeEnabled" :`, s.DowngradeInfo.Enabled)
					b.WriteString("\n")
				}
			case "table":
				t := table{header: []string{"ENDPOINT", "ID", "VERSION", "STORAGE VERSION", "DB SIZE", "IN USE",
					"PERCENTAGE NOT IN USE", "QUOTA", "IS LEADER", "IS LEARNER", "RAFT TERM", "RAFT INDEX",
					"RAFT APPLIED INDEX", "ERRORS", "DOWNGRADE TARGET VERSION", "DOWNGRADE ENABLED"}}
				for _, r := range rs {
					t.rows = append(t.rows, statusRow(r))
				}
				b.WriteString(t.String())
			default:
				for _, r := range rs {
					b.WriteString(strings.Join(statusRow(r), ", ") + "\n")
				}
			}
			c.printf("%s", b.String())
		})
}

func errorsOrEmpty(errs []string) []string {
	if errs == nil {
		return []string{}
	}
	return errs
}

// statusRow is etcdctl's makeEndpointStatusTable row.
func statusRow(r epStatus) []string {
	s := r.Resp
	return []string{r.Ep, idHex(s.Header.MemberId), s.Version, s.StorageVersion, humanBytes(uint64(s.DbSize)),
		humanBytes(uint64(s.DbSizeInUse)), fmt.Sprintf("%d%%", 100-s.DbSizeInUse*100/s.DbSize), humanBytes(uint64(s.DbSizeQuota)),
		strconv.FormatBool(s.Leader == s.Header.MemberId), strconv.FormatBool(s.IsLearner),
		strconv.FormatUint(s.RaftTerm, 10), strconv.FormatUint(s.RaftIndex, 10), strconv.FormatUint(s.RaftAppliedIndex, 10),
		strings.Join(s.Errors, ", "), s.DowngradeInfo.TargetVersion, strconv.FormatBool(s.DowngradeInfo.Enabled)}
}

type healthResult struct {
	Endpoint string `json:"endpoint"`
	Health   bool   `json:"health"`
	Took     string `json:"took"`
	Error    string `json:"error,omitempty"`
	at       sim.Time
}

// endpointHealth does what etcdctl does: for every endpoint at once, a
// client of its own sends a linearizable get of the key "health" within
// the command timeout; the results are printed once all are in, in the
// order they came. A client cannot connect to a member that is down or
// frozen (clientv3 waits for a connection until the deadline), so it
// sends nothing there.
func (c *Console) endpointHealth(eps []string, f *flags) error {
	format := *f.writeOut
	start := c.w.Now()
	deadline := start.Add(*f.commandTimeout)
	ops := make([]*sim.Op, len(eps))
	for i, ep := range eps {
		if !c.answers(ep) {
			continue
		}
		op, err := c.do(sim.Command{Kind: sim.CmdGet, Via: ep, By: "etcdctl", Timeout: *f.commandTimeout, Req: server.Get("health", false)})
		if err != nil {
			return err
		}
		ops[i] = op
	}
	var results []healthResult
	var logs strings.Builder
	reported := make([]bool, len(ops))
	// Once the get has answered, etcdctl asks the same endpoint for the
	// alarm list (through raft, like the get) before it reports; took is
	// the get's latency alone.
	alarms := make([]*sim.Op, len(ops))
	took := make([]time.Duration, len(ops))
	j := &job{deadline: c.w.Now().Add(waitLimit), wake: deadline}
	j.poll = func() bool {
		for i, op := range ops {
			if reported[i] {
				continue
			}
			if op == nil {
				if c.w.Now() < deadline {
					continue
				}
				reported[i] = true
				peer, err := peerNone, deadlineErr
				if in, _ := c.w.Info(eps[i]); !in.Up {
					err = refusedErr(c.hostPort(eps[i]))
				}
				c.clientWarn(&logs, "client", c.label(eps[i]), peer, "/etcdserverpb.KV/Range", err)
				results = append(results, healthResult{Endpoint: c.label(eps[i]), Took: time.Duration(deadline - start).String(),
					Error: "context deadline exceeded"})
				continue
			}
			if op.Status == sim.OpPending {
				continue
			}
			if op.Status == sim.OpOK && alarms[i] == nil {
				took[i] = op.Latency(c.w.Now())
				alarm, err := c.w.Do(sim.Command{Kind: sim.CmdAlarmList, Via: eps[i], By: "etcdctl", Timeout: time.Duration(deadline - c.w.Now())})
				if err != nil { // the member went away meanwhile
					reported[i] = true
					results = append(results, healthResult{Endpoint: c.label(eps[i]), Took: took[i].String(), Error: "Unable to fetch the alarm list", at: c.w.Now()})
					continue
				}
				alarms[i] = alarm
			}
			if alarms[i] != nil && alarms[i].Status == sim.OpPending {
				continue
			}
			reported[i] = true
			r := healthResult{Endpoint: c.label(eps[i]), Health: op.Status == sim.OpOK, Took: op.Latency(c.w.Now()).String(), at: c.w.Now()}
			if alarms[i] != nil {
				r.Took = took[i].String()
				if alarms[i].Status != sim.OpOK {
					r.Health, r.Error = false, "Unable to fetch the alarm list"
				}
			}
			if op.Status != sim.OpOK {
				r.Error = op.Err
				in, _ := c.w.Info(eps[i])
				peer, err := peerOf(c.hostPort(eps[i])), "rpc error: code = DeadlineExceeded desc = context deadline exceeded"
				switch {
				case !in.Up:
					peer, err = peerNone, refusedErr(c.hostPort(eps[i]))
				case in.Stalled:
					peer = peerNone
				}
				if op.Status == sim.OpTimeout {
					c.clientWarn(&logs, "client", c.label(eps[i]), peer, "/etcdserverpb.KV/Range", err)
				}
			}
			results = append(results, r)
		}
		if len(results) < len(ops) {
			return false
		}
		c.printHealth(j, results, format, logs.String())
		return true
	}
	return c.start(j, false)
}

func (c *Console) printHealth(j *job, rs []healthResult, format, logs string) {
	var b strings.Builder
	b.WriteString(logs)
	bad := false
	switch format {
	case "json":
		out, _ := json.Marshal(rs)
		b.Write(out)
		b.WriteString("\n")
	case "table":
		t := table{header: []string{"ENDPOINT", "HEALTH", "TOOK", "ERROR"}}
		for _, r := range rs {
			t.rows = append(t.rows, []string{r.Endpoint, strconv.FormatBool(r.Health), r.Took, r.Error})
		}
		b.WriteString(t.String())
	case "fields":
		for _, r := range rs {
			fmt.Fprintf(&b, "\"Endpoint\" : %q\n", r.Endpoint)
			fmt.Fprintln(&b, `"Health" :`, r.Health)
			fmt.Fprintln(&b, `"Took" :`, r.Took)
			fmt.Fprintln(&b, `"Error" :`, r.Error)
			b.WriteString("\n")
		}
	default:
		for _, r := range rs {
			if r.Error == "" {
				fmt.Fprintf(&b, "%s is healthy: successfully committed proposal: took = %s\n", r.Endpoint, r.Took)
			} else {
				fmt.Fprintf(&b, "%s is unhealthy: failed to commit proposal: %s\n", r.Endpoint, r.Error)
			}
		}
	}
	for _, r := range rs {
		bad = bad || r.Error != ""
	}
	if bad {
		b.WriteString("Error: unhealthy cluster\n")
	}
	c.output(j, b.String())
}

// hashKVResponse is etcdserverpb.HashKVResponse as encoding/json writes it.
type hashKVResponse struct {
	Header          *etcdserverpb.ResponseHeader `json:"header"`
	Hash            uint32                       `json:"hash,omitempty"`
	CompactRevision int64                        `json:"compact_revision,omitempty"`
	HashRevision    int64                        `json:"hash_revision,omitempty"`
}

type epHashKV struct {
	Ep   string         `json:"Endpoint"`
	Resp hashKVResponse `json:"HashKV"`
}

// endpointHashKV asks each endpoint in turn for the hash of its store up to
// rev (0: its latest revision), as etcdctl endpoint hashkv does.
func (c *Console) endpointHashKV(eps []string, f *flags, rev int64) error {
	format := *f.writeOut
	var b strings.Builder
	var rs []epHashKV
	var failed error
	return c.perEndpoint(eps, f,
		func(ep string) {
			h, cur, err := c.w.HashKV(ep, rev)
			if err != nil {
				failed = err
				code := "OutOfRange" // a compacted or future revision
				if ee := (rpctypes.EtcdError{}); errors.As(err, &ee) {
					code = ee.Code().String() // a learner's refusal: FailedPrecondition
				}
				c.clientWarn(&b, "etcd-client", c.label(ep), peerOf(c.hostPort(ep)), "/etcdserverpb.Maintenance/HashKV",
					"rpc error: code = "+code+" desc = "+err.Error())
				fmt.Fprintf(&b, "Failed to get the hash of endpoint %s (%v)\n", c.label(ep), err)
				return
			}
			hdr := c.header(ep, false)
			hdr.Revision = cur
			r := hashKVResponse{Header: hdr, Hash: h.Hash, CompactRevision: h.CompactRevision, HashRevision: h.Revision}
			rs = append(rs, epHashKV{Ep: c.label(ep), Resp: r})
		},
		func(ep string) {
			failed = fmt.Errorf("context deadline exceeded")
			c.failedCall(&b, "etcd-client", ep, "/etcdserverpb.Maintenance/HashKV", "hash")
		},
		func() {
			switch format {
			case "json":
				out, _ := json.Marshal(rs)
				b.Write(out)
				b.WriteString("\n")
			case "fields":
				for _, r := range rs {
					writeFieldsHeader(&b, r.Resp.Header)
					fmt.Fprintf(&b, "\"Endpoint\" : %q\n", r.Ep)
					fmt.Fprintln(&b, `"Hash" :`, r.Resp.Hash)
					fmt.Fprintln(&b, `"HashRevision" :`, r.Resp.HashRevision)
					b.WriteString("\n")
				}
			case "table":
				t := table{header: []string{"ENDPOINT", "HASH", "HASH REVISION"}}
				for _, r := range rs {
					t.rows = append(t.rows, hashRow(r))
				}
				b.WriteString(t.String())
			default:
				for _, r := range rs {
					b.WriteString(strings.Join(hashRow(r), ", ") + "\n")
				}
			}
			if failed != nil {
				fmt.Fprintf(&b, "Error: %v\n", failed)
			}
			c.printf("%s", b.String())
		})
}

func hashRow(r epHashKV) []string {
	return []string{r.Ep, strconv.FormatUint(uint64(r.Resp.Hash), 10), strconv.FormatInt(r.Resp.HashRevision, 10)}
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }
