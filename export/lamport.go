package export

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// LamportOptions choose what a space-time diagram shows.
type LamportOptions struct {
	// From and To are the window of virtual time (To 0: the end of the
	// run). Messages sent in it are drawn to where they arrive, even
	// after To.
	From, To sim.Time
	// Heartbeats draws heartbeats and their replies too; without it they
	// are left out, as the transcript leaves them out.
	Heartbeats bool
	Title      string
}

// Message colours, by type: a request and its reply share a hue, the
// reply lighter.
var msgColors = map[pb.MessageType]string{
	pb.MsgApp: "#1f77b4", pb.MsgAppResp: "#7fb0d8",
	pb.MsgVote: "#d62728", pb.MsgVoteResp: "#f08a8b",
	pb.MsgPreVote: "#e6780b", pb.MsgPreVoteResp: "#f5b36e",
	pb.MsgHeartbeat: "#7f7f7f", pb.MsgHeartbeatResp: "#b8b8b8",
	pb.MsgProp:      "#2ca02c",
	pb.MsgReadIndex: "#9467bd", pb.MsgReadIndexResp: "#bca6d8",
	pb.MsgSnap: "#8c564b", pb.MsgTimeoutNow: "#e377c2", pb.MsgTransferLeader: "#bcbd22",
}

const clientColor = "#17becf"

// MaxLamportMessages bounds the messages of one diagram: a few hundred
// bytes each in memory and in the SVG, and past that no one can read it.
const MaxLamportMessages = 100_000

func msgColor(t pb.MessageType) string {
	if c, ok := msgColors[t]; ok {
		return c
	}
	return "#000000"
}

// Geometry of the diagram, in pixels.
const (
	marginLeft   = 96  // the time axis
	columnWidth  = 150 // between two processes
	headerHeight = 112 // the title, the legend and the names
	captionWidth = 380 // captions on the right
	footer       = 40
	maxHeight    = 6000.0 // busy stretches fill at most this many pixels...
	minPxPerMs   = 0.05   // ...unless that would squeeze them flatter than this
)

// message is one raft message as the diagram draws it.
type message struct {
	sim.Event             // the send
	arrive    []sim.Event // its deliveries and drops
}

// diagram is one space-time diagram as Lamport draws it: what it took
// from the history, the columns and the time map, and the writer.
type diagram struct {
	w         *sim.World
	opt       LamportOptions
	from, to  sim.Time // the window
	end       sim.Time // the window's end, or the last arrival of a message sent in it
	members   []sim.MemberInfo
	col       map[uint64]int // member ID → column
	clientCol map[string]int // client → column
	names     []string       // a column's name
	ops       []*sim.Op
	msgs      []*message
	events    []sim.Event // everything else in the window, in order
	tm        *timeMap
	width     float64
	captionY  float64 // the last caption's text, so that captions at one time do not overlap
	p         func(format string, args ...any)
}

// Lamport writes a space-time diagram of w's history as SVG: a vertical
// line per member and per client, time running down; a raft message is an
// arrow from its send to its arrival, coloured by type, and a dropped one
// ends in a cross where it was lost; the spans when a member led are
// shaded, with their term; crashes and other faults are marked on the
// member's line; captions run across the diagram at their time. Each
// message arrow is an SVG group of class "msg" (a duplicated message has
// one per copy), with its type and ID as data attributes.
//
// It draws at most MaxLamportMessages messages.
func Lamport(out io.Writer, w *sim.World, opt LamportOptions) error {
	from, to := opt.From, opt.To
	if to <= 0 || to > w.Now() {
		to = w.Now()
	}
	if to < from {
		return fmt.Errorf("the window ends (%s) before it starts (%s)", to, from)
	}
	d := &diagram{w: w, opt: opt, from: from, to: to, end: to, members: w.Infos(), col: map[uint64]int{},
		clientCol: map[string]int{}, ops: w.Ops()}
	for i, m := range d.members {
		d.col[m.ID] = i
		d.names = append(d.names, m.Name)
	}
	if err := d.collect(); err != nil {
		return err
	}
	d.placeClients()

	d.tm = newTimeMap(from, d.end, busySpans(d.msgs, d.events))
	d.width = marginLeft + float64(len(d.names))*columnWidth + captionWidth
	bw := bufio.NewWriter(out)
	d.p = func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	d.header()
	d.timeAxis()
	leaderSpans(d.p, w, d.members, from, d.end, d.x, d.tm.y, d.col)
	d.processLines()
	for _, e := range d.events {
		d.event(e)
	}
	for _, m := range d.msgs {
		d.message(m)
	}
	d.p("</svg>\n")
	return bw.Flush()
}

// collect sorts the history in the window into messages, with their
// arrivals, and other events, and gives each client that sent a request
// in it a column (placed by placeClients). A message's arrival after the
// window stretches d.end to it.
func (d *diagram) collect() error {
	byID := map[uint64]*message{}
	for i := range d.w.HistoryLen() {
		e := d.w.EventAt(i)
		switch e.Kind {
		case sim.EvSend:
			if e.At < d.from || e.At > d.to || (!d.opt.Heartbeats && e.IsHeartbeat()) {
				continue
			}
			if len(d.msgs) == MaxLamportMessages {
				return fmt.Errorf("more than %d messages from %s to %s: more than a diagram can show; narrow it with --from and --to", MaxLamportMessages, d.from, e.At)
			}
			m := &message{Event: e}
			d.msgs = append(d.msgs, m)
			byID[e.Msg.ID] = m
		case sim.EvDeliver, sim.EvDrop:
			if m := byID[e.Msg.ID]; m != nil {
				m.arrive = append(m.arrive, e)
				d.end = max(d.end, e.At)
			}
		default:
			if e.At < d.from || e.At > d.to {
				continue
			}
			if (e.Kind == sim.EvRequest || e.Kind == sim.EvReply) && e.Op > 0 {
				c := d.ops[e.Op-1].Client
				if _, ok := d.clientCol[c]; !ok {
					d.clientCol[c] = -1
				}
			}
			d.events = append(d.events, e)
		}
	}
	for _, m := range d.msgs {
		if len(m.arrive) == 0 {
			d.end = max(d.end, m.Msg.ArriveAt) // still in flight at the end of the run
		}
	}
	return nil
}

// placeClients gives the clients columns after the members', in order of
// name.
func (d *diagram) placeClients() {
	var clients []string
	for c := range d.clientCol {
		clients = append(clients, c)
	}
	slices.Sort(clients)
	for i, c := range clients {
		d.clientCol[c] = len(d.members) + i
		if _, isMember := d.col[memberID(d.members, c)]; isMember {
			c += "/client" // a member's local client
		}
		d.names = append(d.names, c)
	}
}

// x is the x of column c's line.
func (d *diagram) x(c int) float64 { return marginLeft + columnWidth/2 + float64(c)*columnWidth }

// placeCaption returns the y of a caption's text at yy, below the last
// one's.
func (d *diagram) placeCaption(yy float64) float64 {
	yy = max(yy, d.captionY+15)
	d.captionY = yy
	return yy
}

// header writes the SVG's opening, its arrow heads, the title and the
// legend.
func (d *diagram) header() {
	p := d.p
	height := d.tm.y(d.end) + footer
	p(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n",
		d.width, height, d.width, height)
	p(`<title>%s</title>`+"\n", esc(d.opt.Title))
	p(`<defs>`)
	colors := slices.Sorted(maps.Values(msgColors))
	for _, c := range append(colors, "#000000", clientColor) {
		p(`<marker id="a%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`,
			c[1:], c)
	}
	p("</defs>\n")
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="%d" y="20" font-size="15" font-weight="bold">%s</text>`+"\n", 8, esc(d.opt.Title))
	p(`<text x="%d" y="38" fill="#555">virtual time %s to %s; seed %d%s</text>`+"\n", 8, d.from, d.to, d.w.Seed(),
		map[bool]string{true: "", false: "; heartbeats left out"}[d.opt.Heartbeats])
	legend(p, d.opt.Heartbeats, d.width)
}

// timeAxis writes the time axis: in each busy stretch a tick every 1, 2
// or 5 × 10^k ms, about every 80px; a quiet stretch is cut short, and
// marked.
func (d *diagram) timeAxis() {
	p, tm, width := d.p, d.tm, d.width
	step := niceStep(80 / tm.pxPerMs)
	p(`<g class="axis" stroke="#ddd">`)
	for i, b := range tm.blocks {
		for t := math.Ceil(float64(b.start)/1e6/step) * step; t <= float64(b.end)/1e6; t += step {
			yy := tm.y(sim.Time(t * 1e6))
			p(`<line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f"/>`, marginLeft-6, width-captionWidth, yy, yy)
			p(`<text x="%d" y="%.1f" text-anchor="end" stroke="none" fill="#555">%s</text>`, marginLeft-10, yy+4, sim.Time(t*1e6))
		}
		if i+1 < len(tm.blocks) {
			gy := b.y1 + gapHeight/2
			p(`<g class="gap"><rect x="%d" y="%.1f" width="%.0f" height="%.1f" fill="#f4f4f4" stroke="none"/>`, marginLeft-6, b.y1+4, width-captionWidth-marginLeft+6, gapHeight-8)
			p(`<text x="%d" y="%.1f" text-anchor="end" stroke="none" fill="#999" font-style="italic">+%s</text>`, marginLeft-10, gy+4,
				time.Duration(tm.blocks[i+1].start-b.end))
			p(`<text x="%.0f" y="%.1f" stroke="none" fill="#999" font-style="italic">quiet: nothing drawn happens for %s</text></g>`, float64(marginLeft+4), gy+4,
				time.Duration(tm.blocks[i+1].start-b.end))
		}
	}
	p("</g>\n")
}

// processLines writes the process lines: solid while up, dashed while a
// member is down, each under its name.
func (d *diagram) processLines() {
	p, x, y := d.p, d.x, d.tm.y
	down := downSpans(d.w, d.end)
	for i, n := range d.names {
		p(`<line class="process" x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#333" stroke-width="1.5"/>`, x(i), x(i), headerHeight-6, y(d.end))
		if i < len(d.members) {
			for _, s := range down[d.members[i].ID] {
				a, b := max(s.start, d.from), min(s.end, d.end)
				if b > a {
					p(`<line class="down" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#fff" stroke-width="2.5" stroke-dasharray="4,4"><title>%s is down</title></line>`,
						x(i), x(i), y(a), y(b), esc(n))
				}
			}
		}
		weight := "bold"
		if i >= len(d.members) {
			weight = "normal"
		}
		p(`<text x="%.1f" y="%d" text-anchor="middle" font-weight="%s" font-size="13">%s</text>`+"\n", x(i), headerHeight-12, weight, esc(n))
	}
}

// event writes a caption, a fault or a client's request or reply; other
// events are not drawn.
func (d *diagram) event(e sim.Event) {
	switch e.Kind {
	case sim.EvCaption:
		d.caption(e)
	case sim.EvFault:
		d.fault(e)
	case sim.EvRequest, sim.EvReply:
		if e.Op != 0 {
			d.clientArrow(e)
		}
	}
}

// caption writes a caption: a line across the diagram at its time, and
// its text on the right.
func (d *diagram) caption(e sim.Event) {
	yy := d.tm.y(e.At)
	ty := d.placeCaption(yy)
	d.p(`<g class="caption"><title>%s</title><line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#444" stroke-dasharray="6,4"/>`,
		esc(e.Text), marginLeft, d.width-captionWidth+6, yy, yy)
	d.p(`<text x="%.0f" y="%.1f" fill="#222">%s</text></g>`+"\n", d.width-captionWidth+10, ty+4, esc(truncate(e.Text, 60)))
}

// fault writes a fault: across the diagram when it is not one member's,
// else on the member's line, a cross for a crash and a square for others.
func (d *diagram) fault(e sim.Event) {
	p := d.p
	yy := d.tm.y(e.At)
	if e.Node == 0 {
		p(`<g class="fault"><line x1="%d" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#c00" stroke-dasharray="2,3"/>`,
			marginLeft, d.width-captionWidth+6, yy, yy)
		p(`<text x="%.0f" y="%.1f" fill="#c00">%s</text></g>`+"\n", d.width-captionWidth+10, d.placeCaption(yy)+4, esc(truncate(e.Text, 60)))
		return
	}
	xx := d.x(d.col[e.Node])
	p(`<g class="fault"><title>%s</title>`, esc(d.names[d.col[e.Node]]+" "+e.Text))
	if strings.HasPrefix(e.Text, "crashes") {
		cross(p, xx, yy, 7, "#c00", 3)
	} else {
		p(`<rect x="%.1f" y="%.1f" width="8" height="8" fill="#c00"/>`, xx-4, yy-4)
	}
	p(`<text x="%.1f" y="%.1f" fill="#c00" font-size="10">%s</text></g>`+"\n", xx+8, yy-4, esc(truncate(e.Text, 22)))
}

// clientArrow writes a client's request, an arrow to the member, or its
// reply, an arrow back; a reply that no member gave (or a timeout) is a
// cross on the client's line.
func (d *diagram) clientArrow(e sim.Event) {
	p, x, y := d.p, d.x, d.tm.y
	op := d.ops[e.Op-1]
	cx := x(d.clientCol[op.Client])
	lat := d.w.Config().ClientLatency
	if e.Kind == sim.EvRequest {
		mx := x(d.col[e.Node])
		arrow(p, "client", cx, y(e.At), mx, y(e.At.Add(lat)), clientColor, false, e.Text)
		return
	}
	if e.Node == 0 || op.Status == sim.OpTimeout {
		p(`<g class="client"><title>%s</title>`, esc(op.Client+": "+e.Text))
		cross(p, cx, y(e.At), 6, clientColor, 2.5)
		p(`<text x="%.1f" y="%.1f" fill="%s" font-size="10">%s</text></g>`+"\n", cx+8, y(e.At)+4, clientColor, esc(truncate(e.Text, 22)))
		return
	}
	mx := x(d.col[e.Node])
	arrow(p, "client", mx, y(e.At-sim.Time(lat)), cx, y(e.At), clientColor, false, e.Text)
}

// message writes a raft message: an arrow per delivery, a dashed line
// ending in a cross per drop, and a dashed arrow to where it would arrive
// if it is still in flight at the end of the run.
func (d *diagram) message(m *message) {
	p, x, y := d.p, d.x, d.tm.y
	c := msgColor(m.Msg.Type)
	x1, y1 := x(d.col[m.Node]), y(m.At)
	to, ok := d.col[m.Peer]
	if !ok { // to a node that is not a member
		return
	}
	x2 := x(to)
	desc := d.w.Describe(m.Event)
	if len(m.arrive) == 0 { // still in flight at the end of the run
		arrow(p, "msg", x1, y1, x2, y(m.Msg.ArriveAt), c, true, desc+" (still in flight)", dataAttrs(m.Event))
		return
	}
	for _, a := range m.arrive {
		if a.Kind == sim.EvDeliver {
			arrow(p, "msg", x1, y1, x2, y(a.At), c, false, desc, dataAttrs(m.Event))
			continue
		}
		// Dropped: it ends in a cross where it was lost.
		f := 1.0
		switch a.Reason {
		case netmodel.DropCut:
			f = 0.3 // cut: it never got far
		case netmodel.DropLoss:
			f = 0.5 // lost in flight
		}
		ex, ey := x1+(x2-x1)*f, y1+(y(a.At)-y1)*f
		if a.Reason == netmodel.DropCut && a.At == m.At {
			ey = y1 + 6
		}
		p(`<g class="msg dropped" %s><title>%s</title>`, dataAttrs(m.Event), esc(desc+" — DROPPED: "+a.Reason.String()))
		p(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.3" stroke-dasharray="4,3"/>`, x1, y1, ex, ey, c)
		cross(p, ex, ey, 5, "#c00", 2)
		p("</g>\n")
	}
}

// gapHeight is how tall a quiet stretch of time is drawn, whatever its
// length; gapMin is the shortest stretch that is cut short.
const (
	gapHeight = 36.0
	gapMin    = 40 * time.Millisecond
	pxPerMs   = 3.0 // in busy stretches, unless the diagram would be too tall
)

// span is a stretch of virtual time.
type span struct{ start, end sim.Time }

// busySpans returns the stretches in which something is drawn: each
// message from its send to its last arrival, and each event.
func busySpans(msgs []*message, events []sim.Event) []span {
	var out []span
	for _, m := range msgs {
		end := m.Msg.ArriveAt
		for _, a := range m.arrive {
			end = max(end, a.At)
		}
		out = append(out, span{m.At, end})
	}
	for _, e := range events {
		out = append(out, span{e.At, e.At})
	}
	return out
}

// timeMap maps virtual time to the diagram's y: linear in busy stretches,
// with the quiet ones between them cut to gapHeight.
type timeMap struct {
	blocks  []block
	pxPerMs float64
}

type block struct {
	start, end sim.Time
	y0, y1     float64
}

func newTimeMap(from, to sim.Time, busy []span) *timeMap {
	busy = append(busy, span{from, from}, span{to, to})
	slices.SortFunc(busy, func(a, b span) int {
		if a.start != b.start {
			return int(a.start - b.start)
		}
		return int(a.end - b.end)
	})
	var merged []span
	for _, s := range busy {
		s.start, s.end = max(s.start, from), max(s.end, from)
		if n := len(merged); n > 0 && s.start-merged[n-1].end < sim.Time(gapMin) {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	var busyMs float64
	for _, s := range merged {
		busyMs += float64(s.end-s.start) / 1e6
	}
	tm := &timeMap{pxPerMs: min(pxPerMs, max(maxHeight/max(busyMs, 1), minPxPerMs))}
	yy := float64(headerHeight)
	for i, s := range merged {
		if i > 0 {
			yy += gapHeight
		}
		b := block{start: s.start, end: s.end, y0: yy}
		yy += float64(s.end-s.start) / 1e6 * tm.pxPerMs
		b.y1 = yy
		tm.blocks = append(tm.blocks, b)
	}
	return tm
}

// y returns where time t is drawn.
func (tm *timeMap) y(t sim.Time) float64 {
	i, _ := slices.BinarySearchFunc(tm.blocks, t, func(b block, t sim.Time) int {
		if b.end < t {
			return -1
		}
		if b.start > t {
			return 1
		}
		return 0
	})
	if i >= len(tm.blocks) {
		b := tm.blocks[len(tm.blocks)-1]
		return b.y1 + float64(t-b.end)/1e6*tm.pxPerMs
	}
	b := tm.blocks[i]
	if t >= b.start {
		return b.y0 + float64(t-b.start)/1e6*tm.pxPerMs
	}
	// In the quiet stretch before block i.
	prev := tm.blocks[i-1]
	f := float64(t-prev.end) / float64(b.start-prev.end)
	return prev.y1 + f*gapHeight
}

// downSpans returns, by member ID, the stretches when it was down: from a
// crash to its restart, or to end.
func downSpans(w *sim.World, end sim.Time) map[uint64][]span {
	out := map[uint64][]span{}
	since := map[uint64]sim.Time{}
	for i := range w.HistoryLen() {
		e := w.EventAt(i)
		if e.Kind != sim.EvFault || e.Node == 0 {
			continue
		}
		switch {
		case strings.HasPrefix(e.Text, "crashes"):
			since[e.Node] = e.At
		case strings.HasPrefix(e.Text, "restarts"):
			if t, ok := since[e.Node]; ok {
				out[e.Node] = append(out[e.Node], span{t, e.At})
				delete(since, e.Node)
			}
		}
	}
	for id, t := range since {
		out[id] = append(out[id], span{t, end})
	}
	return out
}

// leaderSpans shades each span of time a member believed it led, with the
// term, from its role events.
func leaderSpans(p func(string, ...any), w *sim.World, members []sim.MemberInfo, from, end sim.Time,
	x func(int) float64, y func(sim.Time) float64, col map[uint64]int) {
	type span struct {
		start sim.Time
		term  uint64
	}
	open := map[uint64]*span{}
	shade := func(node uint64, s *span, stop sim.Time) {
		a, b := max(s.start, from), min(stop, end)
		if b <= a {
			return
		}
		hue := (s.term * 67) % 360
		p(`<g class="leader"><title>%s leads term %d</title><rect x="%.1f" y="%.1f" width="18" height="%.1f" fill="hsl(%d,70%%,60%%)" fill-opacity="0.35"/>`,
			esc(members[col[node]].Name), s.term, x(col[node])-9, y(a), max(y(b)-y(a), 1), hue)
		p(`<text x="%.1f" y="%.1f" font-size="10" fill="hsl(%d,60%%,30%%)">term %d</text></g>`+"\n", x(col[node])-12, y(a)+12, hue, s.term)
	}
	for i := range w.HistoryLen() {
		e := w.EventAt(i)
		if e.At > end {
			break
		}
		switch {
		case e.Kind == sim.EvRole:
			if s := open[e.Node]; s != nil && (e.Role != raft.StateLeader || e.Term != s.term) {
				shade(e.Node, s, e.At)
				delete(open, e.Node)
			}
			if e.Role == raft.StateLeader && open[e.Node] == nil {
				open[e.Node] = &span{e.At, e.Term}
			}
		case e.Kind == sim.EvFault && e.Node != 0 && strings.HasPrefix(e.Text, "crashes"):
			if s := open[e.Node]; s != nil {
				shade(e.Node, s, e.At)
				delete(open, e.Node)
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(open)) {
		shade(id, open[id], end)
	}
}

// memberID returns the ID of the member called name, or 0.
func memberID(members []sim.MemberInfo, name string) uint64 {
	for _, m := range members {
		if m.Name == name {
			return m.ID
		}
	}
	return 0
}

func arrow(p func(string, ...any), class string, x1, y1, x2, y2 float64, color string, dashed bool, title string, attrs ...string) {
	dash := ""
	if dashed {
		dash = ` stroke-dasharray="5,3"`
	}
	p(`<g class="%s" %s><title>%s</title><line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.3"%s marker-end="url(#a%s)"/></g>`+"\n",
		class, strings.Join(attrs, " "), esc(title), x1, y1, x2, y2, color, dash, color[1:])
}

func cross(p func(string, ...any), x, y, r float64, color string, width float64) {
	p(`<path d="M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f" stroke="%s" stroke-width="%.1f"/>`,
		x-r, y-r, x+r, y+r, x-r, y+r, x+r, y-r, color, width)
}

func dataAttrs(e sim.Event) string {
	return fmt.Sprintf(`data-id="%d" data-type="%s"`, e.Msg.ID, e.Msg.Type)
}

// legend draws a swatch per message type, in rows that fit width.
func legend(p func(string, ...any), heartbeats bool, width float64) {
	types := []pb.MessageType{pb.MsgApp, pb.MsgAppResp, pb.MsgPreVote, pb.MsgPreVoteResp, pb.MsgVote, pb.MsgVoteResp,
		pb.MsgProp, pb.MsgReadIndex, pb.MsgReadIndexResp, pb.MsgSnap, pb.MsgTimeoutNow}
	if heartbeats {
		types = append(types, pb.MsgHeartbeat, pb.MsgHeartbeatResp)
	}
	type item struct{ label, color string }
	var items []item
	for _, t := range types {
		items = append(items, item{t.String(), msgColor(t)})
	}
	items = append(items, item{"client request/reply", clientColor}, item{"dropped / crash", ""})
	xx, yy := 8.0, 58.0
	for _, it := range items {
		w := 30 + 6.5*float64(len(it.label))
		if xx+w > width {
			xx, yy = 8, yy+18
		}
		if it.color == "" {
			cross(p, xx+8, yy, 5, "#c00", 2)
		} else {
			p(`<line x1="%.0f" x2="%.0f" y1="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/>`, xx, xx+16, yy, yy, it.color)
		}
		p(`<text x="%.0f" y="%.0f" font-size="11">%s</text>`, xx+20, yy+4, it.label)
		xx += w
	}
	p("\n")
}

// niceStep returns 1, 2 or 5 × 10^k, the smallest at least min.
func niceStep(min float64) float64 {
	if min <= 0 {
		return 1
	}
	k := math.Pow(10, math.Floor(math.Log10(min)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*k >= min {
			return f * k
		}
	}
	return 10 * k
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func esc(s string) string { return html.EscapeString(s) }
