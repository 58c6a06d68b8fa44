package export

import (
	"bufio"
	"fmt"
	"io"
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
	// A vector clock is a count per host, by the host's number; hosts are
	// numbered as they first appear. The clock of every message sent is
	// kept until the end (a duplicate may arrive late), so it is kept
	// small: a slice, not a map.
	var hosts []string
	hostNum := map[string]int{}
	var clocks [][]uint32
	num := func(host string) int {
		i, ok := hostNum[host]
		if !ok {
			i = len(hosts)
			hosts, hostNum[host] = append(hosts, host), i
			clocks = append(clocks, nil)
		}
		return i
	}
	grow := func(c []uint32) []uint32 {
		for len(c) < len(hosts) {
			c = append(c, 0)
		}
		return c
	}
	tick := func(host string) []uint32 {
		i := num(host)
		clocks[i] = grow(clocks[i])
		clocks[i][i]++
		return clocks[i]
	}
	merge := func(host string, from []uint32) {
		i := num(host)
		clocks[i] = grow(clocks[i])
		for h, n := range from {
			clocks[i][h] = max(clocks[i][h], n)
		}
	}
	emit := func(host, what string) []uint32 {
		c := tick(host)
		fmt.Fprintf(bw, "%s\n%s %s\n", strings.ReplaceAll(what, "\n", " "), host, clockJSON(hosts, c))
		return c
	}
	sent := map[uint64][]uint32{} // message ID → the sender's clock at the send
	ops := w.Ops()
	for i := range w.HistoryLen() {
		e := w.EventAt(i)
		what := strings.TrimSpace(w.Describe(e))
		switch e.Kind {
		case sim.EvSend:
			if !opt.Heartbeats && e.IsHeartbeat() {
				continue
			}
			sent[e.Msg.ID] = slices.Clone(emit(members[e.Node], what))
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
			c := slices.Clone(emit(from, what))
			merge(to, c)
			emit(to, what)
		}
	}
	return bw.Flush()
}

// clockJSON writes a vector clock, the hosts it counts in name order.
func clockJSON(hosts []string, c []uint32) string {
	var counted []int
	for h, n := range c {
		if n > 0 {
			counted = append(counted, h)
		}
	}
	slices.SortFunc(counted, func(a, b int) int { return strings.Compare(hosts[a], hosts[b]) })
	var b strings.Builder
	b.WriteByte('{')
	for i, h := range counted {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(hosts[h]))
		b.WriteByte(':')
		b.WriteString(strconv.FormatUint(uint64(c[h]), 10))
	}
	b.WriteByte('}')
	return b.String()
}
