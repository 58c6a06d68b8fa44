package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// endpoint health|status [--cluster] [-w table|json]
func (c *Console) endpoint(args []string, _ bool) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("endpoint needs a subcommand: health or status (usage: endpoint health|status [--cluster] [-w table|json])")
	}
	f := newFlags("endpoint " + args[0])
	cluster := f.Bool("cluster", false, "use every member in the member list as an endpoint")
	if _, err := f.parse(args[1:], 0, 0, "endpoint "+args[0]+" [--cluster] [-w table|json] [--endpoints M]"); err != nil {
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
	switch args[0] {
	case "health":
		return c.endpointHealth(eps, *f.writeOut)
	case "status":
		c.endpointStatus(eps, *f.writeOut)
		return nil
	}
	return fmt.Errorf("unknown endpoint subcommand %q (want health or status)", args[0])
}

// clusterEndpoints asks the first endpoint that answers for the member
// list, as etcdctl --cluster does.
func (c *Console) clusterEndpoints(eps []string) ([]string, error) {
	for _, ep := range eps {
		in, _ := c.w.Info(ep)
		if !in.Up || in.Stalled {
			continue
		}
		voters, learners, _ := c.w.MemberConf(ep)
		var out []string
		for _, name := range c.w.MemberNames() {
			if contains(voters, name) || contains(learners, name) {
				out = append(out, name)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("--cluster: no endpoint answered the member list request (tried %s)", strings.Join(eps, ", "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type healthResult struct {
	Endpoint string `json:"endpoint"`
	Health   bool   `json:"health"`
	Took     string `json:"took"`
	Error    string `json:"error,omitempty"`
}

// endpointHealth does what etcdctl does: a linearizable get of the key
// "health" through each endpoint, all at once, reported in the order the
// answers come back.
func (c *Console) endpointHealth(eps []string, format string) error {
	var ops []*sim.Op
	for _, ep := range eps {
		op, err := c.do(sim.Command{Kind: sim.CmdGet, Via: ep, Key: "health"})
		if err != nil {
			return err
		}
		ops = append(ops, op)
	}
	var results []healthResult
	reported := make([]bool, len(ops))
	j := &job{deadline: c.w.Now().Add(waitLimit)}
	j.poll = func() bool {
		for i, op := range ops {
			if reported[i] || op.Status == sim.OpPending {
				continue
			}
			reported[i] = true
			r := healthResult{Endpoint: eps[i], Health: op.Status == sim.OpOK, Took: op.Latency(c.w.Now()).String()}
			if !r.Health {
				r.Error = op.Err
			}
			results = append(results, r)
		}
		if len(results) < len(ops) {
			return false
		}
		c.printHealth(j, results, format)
		return true
	}
	return c.start(j, false)
}

func (c *Console) printHealth(j *job, rs []healthResult, format string) {
	var b strings.Builder
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
	default:
		for _, r := range rs {
			if r.Health {
				fmt.Fprintf(&b, "%s is healthy: successfully committed proposal: took = %s\n", r.Endpoint, r.Took)
			} else {
				fmt.Fprintf(&b, "%s is unhealthy: failed to commit proposal: %s\n", r.Endpoint, r.Error)
			}
		}
	}
	for _, r := range rs {
		bad = bad || !r.Health
	}
	if bad {
		b.WriteString("Error: unhealthy cluster\n")
	}
	c.output(j, b.String())
}

// statusResult is what one member answers to a Status call: its own view,
// read at once from its raft state (a status call is served locally, with
// no consensus).
type statusResult struct {
	Endpoint string `json:"Endpoint"`
	Status   struct {
		Header struct {
			MemberID uint64 `json:"member_id"`
			Revision int64  `json:"revision"`
			RaftTerm uint64 `json:"raft_term"`
		} `json:"header"`
		Leader           uint64   `json:"leader"`
		RaftIndex        uint64   `json:"raftIndex"`
		RaftTerm         uint64   `json:"raftTerm"`
		RaftAppliedIndex uint64   `json:"raftAppliedIndex"`
		IsLearner        bool     `json:"isLearner"`
		Errors           []string `json:"errors,omitempty"`
	} `json:"Status"`
}

func (c *Console) endpointStatus(eps []string, format string) {
	var rs []statusResult
	for _, ep := range eps {
		in, _ := c.w.Info(ep)
		switch {
		case in.Removed:
			c.printf("Failed to get the status of endpoint %s (rpc error: code = Unavailable desc = connection refused: %s was removed and shut down)\n", ep, ep)
			continue
		case !in.Up:
			c.printf("Failed to get the status of endpoint %s (rpc error: code = Unavailable desc = connection refused: %s is down)\n", ep, ep)
			continue
		case in.Stalled:
			c.printf("Failed to get the status of endpoint %s (context deadline exceeded: %s is stalled)\n", ep, ep)
			continue
		}
		var r statusResult
		r.Endpoint = ep
		rev, _, _ := c.w.MemberKV(ep)
		r.Status.Header.MemberID, r.Status.Header.Revision, r.Status.Header.RaftTerm = in.ID, rev, in.Term
		r.Status.Leader, r.Status.RaftIndex, r.Status.RaftTerm = in.Lead, in.Commit, in.Term
		r.Status.RaftAppliedIndex, r.Status.IsLearner = in.Applied, in.Learner
		if in.Lead == 0 {
			r.Status.Errors = []string{"etcdserver: no leader"}
		}
		rs = append(rs, r)
	}
	switch format {
	case "json":
		out, _ := json.Marshal(rs)
		c.printf("%s\n", out)
	case "table":
		t := table{header: []string{"ENDPOINT", "ID", "IS LEADER", "IS LEARNER", "RAFT TERM", "RAFT INDEX", "RAFT APPLIED INDEX", "ERRORS"}}
		for _, r := range rs {
			t.rows = append(t.rows, statusRow(r))
		}
		c.printf("%s", t.String())
	default:
		for _, r := range rs {
			c.printf("%s\n", strings.Join(statusRow(r), ", "))
		}
	}
}

func statusRow(r statusResult) []string {
	s := r.Status
	return []string{r.Endpoint, hexID(s.Header.MemberID), strconv.FormatBool(s.Leader == s.Header.MemberID),
		strconv.FormatBool(s.IsLearner), strconv.FormatUint(s.RaftTerm, 10), strconv.FormatUint(s.RaftIndex, 10),
		strconv.FormatUint(s.RaftAppliedIndex, 10), strings.Join(s.Errors, ", ")}
}
