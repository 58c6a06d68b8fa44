package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// logShown is how many of the newest log entries status draws per member.
const logShown = 12

// status: a compact picture of the cluster, as the simulator sees it (not
// as any one member does; for that, use endpoint status).
func (c *Console) status(args []string, _ bool) error {
	f := newFlags("status")
	if _, err := f.parse(args, 0, 0, "status"); err != nil {
		return err
	}
	v := c.w.View()
	lead := "no leader"
	if v.Leader != "" {
		in, _ := c.w.Info(v.Leader)
		lead = fmt.Sprintf("leader %s (term %d)", v.Leader, in.Term)
	}
	c.printf("virtual time %s  seed=%d  %s\n", v.Now, v.Seed, lead)
	t := table{header: []string{"MEMBER", "ROLE", "TERM", "VOTE", "LEADER", "COMMIT", "APPLIED", "LOG (first index: terms; ‖ after the commit)"}, left: true}
	for _, m := range v.Members {
		applied := strconv.FormatUint(m.Applied, 10)
		if !m.Up {
			applied = "-"
		}
		t.rows = append(t.rows, []string{m.Name, m.Role.String(), strconv.FormatUint(m.Term, 10), name(c.w, m.Vote),
			name(c.w, m.Lead), strconv.FormatUint(m.Commit, 10), applied, drawLog(m)})
	}
	c.printf("%s", t.String())
	var cuts []string
	for _, l := range v.Cuts {
		cuts = append(cuts, l.From+"→"+l.To)
	}
	net := "network: every link up"
	if len(cuts) > 0 {
		net = "network: cut " + strings.Join(cuts, " ")
	}
	inflight := fmt.Sprintf("%d messages in flight", len(v.InFlight))
	if len(v.InFlight) == 1 {
		inflight = "1 message in flight"
	}
	c.printf("%s; %s\n", net, inflight)
	pending := 0
	for _, op := range v.Ops {
		if op.Status == sim.OpPending && op.Kind != sim.OpWatch {
			pending++
		}
	}
	var clients []string
	for _, cl := range v.Clients {
		clients = append(clients, cl.Name+"→"+strings.Join(cl.Endpoints, ","))
	}
	if len(clients) > 0 {
		c.printf("clients: %s\n", strings.Join(clients, "  "))
	}
	c.printf("requests pending: %d; background jobs: %d\n", pending, len(c.jobs))
	return nil
}

func name(w *sim.World, id uint64) string {
	if id == 0 {
		return "-"
	}
	for _, in := range w.Infos() {
		if in.ID == id {
			return in.Name
		}
	}
	return "n" + strconv.FormatUint(id, 10)
}

// drawLog draws the newest entries of a member's log by term, e.g.
// "2: 2 2 3 3 ‖ 3", where 2 is the index of the first entry drawn and ‖
// follows the commit index. (Not "|": it would read as the table's own
// column border.)
func drawLog(m sim.MemberView) string {
	ents := m.Log
	if len(ents) == 0 {
		return fmt.Sprintf("(empty after snapshot at %d)", m.SnapshotIndex)
	}
	skipped := ""
	if len(ents) > logShown {
		ents = ents[len(ents)-logShown:]
		skipped = "…"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%d:", skipped, ents[0].Index)
	for _, e := range ents {
		b.WriteString(" " + strconv.FormatUint(e.Term, 10))
		if e.Index == m.Commit {
			b.WriteString(" ‖")
		}
	}
	return b.String()
}
