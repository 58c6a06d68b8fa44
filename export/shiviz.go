package export

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// ShiVizRegex is the regular expression to paste into ShiViz's "log
// parsing regular expression" box for a log that ShiViz writes. (It is
// ShiViz's default, the format of GoVector's logs.)
const ShiVizRegex = `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`

// ShiVizOptions choose what the log holds.
type ShiVizOptions struct {
	// Heartbeats logs heartbeats and their replies too.
	Heartbeats bool
}

// ShiViz writes w's history as a log that ShiViz (the distributed-system
// log visualizer, bestchai.bitbucket.io/shiviz) reads: for each event a line
// that says what happened, then a line with the host and its vector clock
// as JSON. The hosts are the members and the clients (a member's local
// client is NAME/client). A raft message is a send at its sender and a
// receive at each member it reached (a dropped copy has no receive); a
// client request and its answer are a send and a receive each way. Role
// changes and faults are local events of their member.
func ShiViz(out io.Writer, w *sim.World, opt ShiVizOptions) error {
	bw := bufio.NewWriter(out)
	members := map[uint64]string{}
	isMember := map[string]bool{}
	for _, m := range w.Infos() {
		members[m.ID] = m.Name
		isMember[m.Name] = true
	}
	clientHost := func(name string) string {
		if isMember[name] {
			return name + "/client"
		}
		return name
	}
	clocks := map[string]map[string]int{}
	tick := func(host string) map[string]int {
		c := clocks[host]
		if c == nil {
			c = map[string]int{}
			clocks[host] = c
		}
		c[host]++
		return c
	}
	merge := func(host string, from map[string]int) {
		c := clocks[host]
		if c == nil {
			c = map[string]int{}
			clocks[host] = c
		}
		for h, n := range from {
			c[h] = max(c[h], n)
		}
	}
	emit := func(host, what string) map[string]int {
		c := tick(host)
		fmt.Fprintf(bw, "%s\n%s %s\n", strings.ReplaceAll(what, "\n", " "), host, clockJSON(c))
		return c
	}
	sent := map[uint64]map[string]int{} // message ID → the sender's clock at the send
	ops := w.Ops()
	for i := range w.HistoryLen() {
		e := w.EventAt(i)
		what := strings.TrimSpace(w.Describe(e))
		switch e.Kind {
		case sim.EvSend:
			if !opt.Heartbeats && e.IsHeartbeat() {
				continue
			}
			sent[e.Msg.ID] = maps.Clone(emit(members[e.Node], what))
		case sim.EvDeliver:
			c, ok := sent[e.Msg.ID]
			if !ok {
				continue
			}
			merge(members[e.Node], c)
			emit(members[e.Node], what)
		case sim.EvRole:
			emit(members[e.Node], what)
		case sim.EvFault:
			if e.Node != 0 {
				emit(members[e.Node], what)
			}
		case sim.EvRequest, sim.EvReply:
			if e.Op == 0 || e.Node == 0 {
				if e.Op > 0 {
					emit(clientHost(ops[e.Op-1].Client), what) // a timeout: the client alone
				}
				continue
			}
			client, member := clientHost(ops[e.Op-1].Client), members[e.Node]
			from, to := client, member
			if e.Kind == sim.EvReply {
				from, to = member, client
			}
			c := maps.Clone(emit(from, what))
			merge(to, c)
			emit(to, what)
		}
	}
	return bw.Flush()
}

// clockJSON writes a vector clock with its hosts in order.
func clockJSON(c map[string]int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, h := range slices.Sorted(maps.Keys(c)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(h))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(c[h]))
	}
	b.WriteByte('}')
	return b.String()
}
