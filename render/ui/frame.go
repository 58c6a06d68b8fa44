package ui

import (
	"math"
	"strings"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// Frame is everything one picture needs, placed: a pure function of the
// App's state and the world's View. Draw reads it, and HitTest asks it what
// lies under the pointer, so what is clicked is always what was drawn.
type Frame struct {
	L     Layout
	Ring  Ring
	View  sim.View
	Names map[string]int // member name → index in View.Members

	Labels  []Rect // under each member: its role, term and vote
	Clients []ClientBox
	Hosts   []HostBox // with a topology: the machines, around what runs on them
	Msgs    []MsgDraw
	Drops   []DropDraw
	Cuts    []CutDraw
	// Partition, when the members fall into two sides that cannot reach
	// each other, is the line between them (the cut links across it are
	// not drawn one by one).
	Partition *PartitionDraw
	Menu      *MenuDraw

	// Named are the log entries the lesson's step on screen names (its
	// shows:), which the logs panel keeps in sight and frames.
	Named []NamedEntry
	// NamedKeys are the keys it names (namedkeys.go), which the
	// state-machine panel shows first.
	NamedKeys []NamedKey

	Track Rect
	Span  sim.Time
	Head  sim.Time
	Marks []Mark

	// Texts is every word drawn, placed and measured.
	Texts []TextItem
}

// NamedEntry is an entry a lesson's step names: a member's entry at an
// index (of a term, which the run proves).
type NamedEntry struct {
	Member string
	Index  uint64
}

// ClientBox is a client: bound to one member, drawn beside it; or with
// several endpoints (an external kube-apiserver), drawn in a row at the
// bottom of the ring panel with its endpoint list.
type ClientBox struct {
	Name, Member string // Member: the member it is bound to, or pinned to
	R            Rect
	Pending      int
	// Down says the client is down with its host (a stacked apiserver
	// whose member is down).
	Down bool
	// Endpoints, for a client with several, in failover order; Member is
	// the one its last request went to (clientv3 stays there).
	Endpoints []string
	Chips     []Rect // where each endpoint is written
	// Local says it is a member's own local client (named after it).
	Local bool
}

// HostBox is a machine: a member and what runs beside it (stacked), or an
// external apiserver on its own.
type HostBox struct {
	R      Rect
	Member string // the member on it, if any
	Client string // the apiserver on it, if any
	Down   bool   // its member is down: everything on it is
}

// MsgDraw is a message in flight, placed.
type MsgDraw struct {
	M     sim.MessageView
	P     Point
	Dir   Point // the unit vector of its travel, from sender to receiver
	Style MsgStyle
}

// DropDraw is the mark of a message that did not arrive.
type DropDraw struct {
	P      Point
	Reason netmodel.DropReason
	Msg    sim.MsgSummary
	Age    float64 // 0 when it was dropped, 1 when the mark goes
	// Labelled says whether the reason is written beside the mark. Drops
	// on a link drawn cut are not: the cut says why.
	Labelled bool
}

// CutDraw is a cut link: both ways (one mark on the link) or one way.
type CutDraw struct {
	From, To string
	Both     bool
	P        Point // the mark
	A, B     Point // the part of the link drawn cut
}

// MenuDraw is an open member or client menu.
type MenuDraw struct {
	Target string // member or client name ("" for the toolbar's menu)
	Title  string // its heading
	Client bool
	R      Rect
	Items  []MenuItem
}

// MenuItem is one entry of a menu.
type MenuItem struct {
	Action  Action
	Label   string
	Key     string
	R       Rect
	Enabled bool
}

// dropMarkWindow is how long a drop mark stays, in virtual time, at least.
const dropMarkWindow = 40 * time.Millisecond

// BuildFrame places everything the App shows now.
func BuildFrame(a *App) *Frame {
	v := a.S.World().View()
	l := a.L
	if len(l.Members.Pos) != len(v.Members) {
		// A member was added since the App was laid out; Update lays it
		// out again, and until then this frame is laid out for itself.
		l = Lay(a.screenFor(int(l.W), int(l.H), ViewShape(v, l.Members.Hosts)))
	}
	f := &Frame{L: l, View: v, Names: map[string]int{}, Ring: l.Members, Named: a.namedEntries(), NamedKeys: a.namedKeys()}
	for i, m := range v.Members {
		f.Names[m.Name] = i
	}
	g := f.Ring
	for i := range v.Members {
		f.Labels = append(f.Labels, g.Labels(i))
	}
	f.placeClients(a)
	if g.Hosts {
		f.placeHosts()
	}
	f.placeMessages(a)
	f.placePartition()
	f.placeCuts()
	f.placeDrops(a)
	if a.menu != nil {
		f.Menu = a.buildMenu(f)
	}
	f.Head = a.S.Head()
	f.Span = Span(f.Head)
	if a.Lesson != nil {
		// A lesson's timeline spans the lesson, whatever its length.
		f.Span = LessonSpan(a.Lesson.Lesson().Duration(), f.Head)
	}
	f.Track = Track(l)
	f.Marks = a.S.Marks()
	f.Texts = f.texts(a)
	return f
}

// placeClients places the client boxes: a client bound to one member (a
// stacked apiserver), or a member's own local client once it has sent a
// request, in a box under that member's labels; a client with several
// endpoints in the strip along the bottom of the ring panel.
func (f *Frame) placeClients(a *App) {
	g := f.Ring
	pending := map[string]int{}
	used := map[string]bool{}
	for _, op := range f.View.Ops {
		used[op.Client] = true
		if op.Status == sim.OpPending && op.Kind != sim.OpWatch {
			pending[op.Client]++
		}
	}
	f.placeExternal(pending, used)
	boxed := map[int]bool{}
	box := func(name string, i int) {
		if g.ClientH == 0 {
			return // no room for it: its requests are in the clients panel
		}
		r := g.ClientSlot(i)
		f.Clients = append(f.Clients, ClientBox{Name: name, Member: f.View.Members[i].Name, R: r,
			Pending: pending[name], Down: !f.View.Members[i].Up, Local: name == f.View.Members[i].Name})
		boxed[i] = true
	}
	for _, c := range f.View.Clients {
		if len(c.Endpoints) != 1 {
			continue
		}
		if i, ok := f.Names[c.Endpoints[0]]; ok && !boxed[i] {
			box(c.Name, i)
		}
	}
	// A member's own client (a request "via" the member names it after
	// the member): drawn once it has sent something.
	for i, m := range f.View.Members {
		if used[m.Name] && !boxed[i] {
			box(m.Name, i)
		}
	}
}

// externalClients returns the clients with several endpoints, and those
// outside the simulation.
func externalClients(v sim.View) []sim.ClientConfig {
	var out []sim.ClientConfig
	for _, c := range v.Clients {
		if len(c.Endpoints) > 1 {
			out = append(out, c)
		}
	}
	return append(out, viewWireClients(v)...) // clients outside the simulation (wireclients.go)
}

// placeExternal places the clients with several endpoints side by side in
// the strip along the bottom of the ring panel: each a box with its name,
// the endpoint its last request went to (clientv3 stays there) and its
// endpoints as chips, that one filled. On a Kubernetes topology each is
// an apiserver on its own host; without one, a client is drawn once it
// has sent a request (a client that sends nothing is not part of the
// story).
func (f *Frame) placeExternal(pending map[string]int, used map[string]bool) {
	g := f.Ring
	if g.Strip.W == 0 {
		return
	}
	l := f.L
	pad, edge := l.Px(6), l.Px(5)
	ext := externalClients(f.View)
	perRow := max(1, int((g.Strip.W+pad)/(g.ExtW+pad)))
	for k, c := range ext {
		row, col := k/perRow, k%perRow
		inRow := min(perRow, len(ext)-row*perRow)
		x0 := g.Strip.X + (g.Strip.W-(float64(inRow)*g.ExtW+float64(inRow-1)*pad))/2
		host := Rect{x0 + float64(col)*(g.ExtW+pad), g.Strip.Y + float64(row)*(g.ExtH+pad), g.ExtW, g.ExtH}
		if !g.Hosts && !used[c.Name] {
			continue
		}
		r := host.Inset(edge)
		pinned := c.Endpoints[0]
		for i := len(f.View.Ops) - 1; i >= 0; i-- {
			if op := f.View.Ops[i]; op.Client == c.Name && op.Member != "" {
				pinned = op.Member
				break
			}
		}
		cb := ClientBox{Name: c.Name, Member: pinned, R: r, Pending: pending[c.Name], Endpoints: c.Endpoints}
		chipW, lh := g.ChipW, l.SmallH()
		x := r.Right() - l.Px(4) - float64(len(c.Endpoints))*(chipW+l.Px(2)) + l.Px(2)
		for i := range c.Endpoints {
			cb.Chips = append(cb.Chips, Rect{x + float64(i)*(chipW+l.Px(2)), r.Y + (r.H-lh)/2, chipW, lh})
		}
		f.Clients = append(f.Clients, cb)
		if g.Hosts {
			f.Hosts = append(f.Hosts, HostBox{R: host, Client: c.Name})
		}
	}
}

// ChipLabel is how an endpoint is written in its chip: the number at the
// end of its name (etcd-3 → 3), else the name.
func ChipLabel(name string) string {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) {
		return name
	}
	return name[i:]
}

// placeHosts draws a host around each member and what runs with it (its
// stacked apiserver): the room the layout gave it.
func (f *Frame) placeHosts() {
	for i, m := range f.View.Members {
		if m.Role == sim.RoleRemoved {
			continue
		}
		h := HostBox{Member: m.Name, Down: !m.Up, R: f.Ring.Footprint(i)}
		for _, c := range f.Clients {
			if c.Member == m.Name && len(c.Endpoints) == 0 {
				h.Client = c.Name
			}
		}
		f.Hosts = append(f.Hosts, h)
	}
}

func union(a, b Rect) Rect {
	x0, y0 := math.Min(a.X, b.X), math.Min(a.Y, b.Y)
	x1, y1 := math.Max(a.Right(), b.Right()), math.Max(a.Bottom(), b.Bottom())
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

func (f *Frame) placeMessages(a *App) {
	queued := map[string]int{}
	for _, m := range f.View.InFlight {
		pos := 0
		if m.Queued {
			pos = queued[m.To]
			queued[m.To]++
		}
		p, ok := MessagePos(f.Ring, f.Names, m, pos, f.View.Now, f.L.S)
		if !ok {
			continue
		}
		d := f.Ring.Pos[f.Names[m.To]].Sub(f.Ring.Pos[f.Names[m.From]])
		if n := d.Len(); n > 0 {
			d = d.Scale(1 / n)
		}
		f.Msgs = append(f.Msgs, MsgDraw{M: m, P: p, Dir: d, Style: StyleOfMessage(m.Type)})
	}
}

func (f *Frame) placeDrops(a *App) {
	w := a.S.World()
	// A drop mark stays for a second of wall time, whatever the pace
	// did meanwhile (or, before a second has been played, a second at
	// the current rate).
	window := sim.Time(a.WallSecond())
	if window == 0 {
		window = sim.Time(float64(time.Second) * a.Speed())
	}
	// At most what the session keeps of the history (a jump of minutes in
	// one frame, a command box's wait 10m, draws the last two minutes'
	// drops): the picture is the same whether the session forgot or not.
	window = min(max(sim.Time(dropMarkWindow), window), historyKeepBack)
	names := w.MemberNames()
	cut := map[[2]string]bool{}
	for _, c := range f.View.Cuts {
		cut[[2]string{c.From, c.To}] = true
	}
	name := func(id uint64) string {
		if id >= 1 && id <= uint64(len(names)) {
			return names[id-1]
		}
		return ""
	}
	for i := w.HistoryLen() - 1; i >= w.HistoryStart(); i-- { // the session keeps more than window (session_forget.go)
		e := w.EventAt(i)
		if e.At <= f.View.Now-window {
			break
		}
		if e.Kind != sim.EvDrop {
			continue
		}
		linkCut := cut[[2]string{name(e.Node), name(e.Peer)}]
		if e.Reason == netmodel.DropCut && !linkCut {
			// Dropped by a cut that has since healed: the link is whole
			// again, and a "partition" mark there would say otherwise.
			continue
		}
		p, ok := DropPos(f.Ring, f.Names, name(e.Node), name(e.Peer), e.Reason, f.L.S)
		if !ok {
			continue
		}
		if e.Reason == netmodel.DropCut {
			// On the link, clear of labels, boxes and the cut's own mark;
			// across a partition, where the link meets its line.
			i, j := f.Names[name(e.Node)], f.Names[name(e.Peer)]
			start, end := Lane(f.Ring.Pos[i], f.Ring.Pos[j], f.Ring.NodeR, laneOffset(f.L.S))
			at := DropFraction(e.Reason)
			if f.Partition != nil && f.Partition.Across(name(e.Node), name(e.Peer)) {
				at = f.Partition.Crossing(start, end)
			}
			p = f.clearSpot(start, end, at, DropMarkR(f.L.S), true)
		}
		f.Drops = append(f.Drops, DropDraw{P: p, Reason: e.Reason, Msg: e.Msg,
			Age: float64(f.View.Now-e.At) / float64(window),
			// Only a loss, or a full queue, is written: a drop on a link
			// drawn cut is explained by the cut, a drop at a member that is
			// down by its shape.
			Labelled: e.Reason != netmodel.DropCut && e.Reason != netmodel.DropDown})
		if len(f.Drops) >= 64 {
			break
		}
	}
}

func (f *Frame) placeCuts() {
	cut := map[[2]string]bool{}
	for _, c := range f.View.Cuts {
		cut[[2]string{c.From, c.To}] = true
	}
	for _, c := range f.View.Cuts {
		i, ok1 := f.Names[c.From]
		j, ok2 := f.Names[c.To]
		if !ok1 || !ok2 {
			continue
		}
		both := cut[[2]string{c.To, c.From}]
		if both && i > j {
			continue // drawn once, from the lower index
		}
		if both && f.Partition != nil && f.Partition.Across(c.From, c.To) {
			continue // the partition's line says it
		}
		d := CutDraw{From: c.From, To: c.To, Both: both}
		at := 0.7 // a one-way cut's mark: on its lane, near the receiver
		if both {
			d.A, d.B = f.Ring.Pos[i], f.Ring.Pos[j]
			at = 0.5
		} else {
			d.A, d.B = Lane(f.Ring.Pos[i], f.Ring.Pos[j], f.Ring.NodeR, laneOffset(f.L.S))
		}
		// CutMark's place, or the nearest one along the link that keeps
		// the mark clear of labels and client boxes.
		d.P = f.clearSpot(d.A, d.B, at, CutMarkR(f.L.S), false)
		f.Cuts = append(f.Cuts, d)
	}
}

// CutMarkR is the radius of a cut link's mark (⊗, or a one-way cut's
// arrow and bar), DropMarkR of a dropped message's ✕, at scale s.
func CutMarkR(s float64) float64 { return 9 * s }

// DropMarkR is the radius of a dropped message's mark.
func DropMarkR(s float64) float64 { return 6 * s }

// MarkBox is the square a mark of radius r at p takes.
func MarkBox(p Point, r float64) Rect { return Rect{p.X - r, p.Y - r, 2 * r, 2 * r} }

// markObstacles are what a mark on a link must not cover besides the
// members' shapes: each member's labels, and the client boxes; and, for a
// drop mark, the cut marks.
func (f *Frame) markObstacles(drop bool) []Rect {
	var out []Rect
	for i := range f.Ring.Pos {
		out = append(out, f.labelPlate(i))
	}
	for _, c := range f.Clients {
		out = append(out, c.R)
	}
	if drop {
		for _, c := range f.Cuts {
			out = append(out, MarkBox(c.P, CutMarkR(f.L.S)))
		}
	}
	return out
}

// clearSpot returns the point of the segment a→b nearest the fraction at
// where a mark of radius r (and a gap) covers none of the obstacles.
func (f *Frame) clearSpot(a, b Point, at, r float64, drop bool) Point {
	obst := f.markObstacles(drop)
	covered := func(p Point) float64 {
		box := MarkBox(p, r+3*f.L.S) // and a gap
		area := 0.0
		// A member's shape, with its timer's arc: a disc.
		for _, c := range f.Ring.Pos {
			if d := p.Sub(c).Len(); d < f.Ring.Core/2+r {
				area += (f.Ring.Core/2 + r - d) * 2 * r
			}
		}
		for _, o := range obst {
			w := math.Min(box.Right(), o.Right()) - math.Max(box.X, o.X)
			h := math.Min(box.Bottom(), o.Bottom()) - math.Max(box.Y, o.Y)
			if w > 0 && h > 0 {
				area += w * h
			}
		}
		return area
	}
	// If no point is clear, the one that covers the least of them.
	best, least := a.Lerp(b, at), math.Inf(1)
	for k := 0; k <= 100; k++ {
		for _, t := range []float64{at - float64(k)*0.01, at + float64(k)*0.01} {
			if t < 0 || t > 1 {
				continue
			}
			p := a.Lerp(b, t)
			if cover := covered(p); cover == 0 {
				return p
			} else if cover < least {
				best, least = p, cover
			}
		}
	}
	return best
}

// HitKind says what lies under the pointer.
type HitKind uint8

// The things a pointer can be over, topmost first.
const (
	HitNone HitKind = iota
	HitHelp
	HitMenuItem
	HitMenuOther // inside an open menu, on no enabled item
	HitButton
	HitTimeline
	HitCut
	HitMessage
	HitMember
	HitLabel // a member's labels (its role, term and vote): its why card
	HitClient
	HitLogCell // an entry in the logs panel: its why card
)

// Hit is what HitTest found.
type Hit struct {
	Kind   HitKind
	Action Action          // HitButton, HitMenuItem
	Name   string          // HitMember, HitLabel, HitClient, HitLogCell: its name (the member's)
	Msg    sim.MessageView // HitMessage
	Cut    CutDraw         // HitCut
	Cell   LogCell         // HitLogCell
}

// HitTest returns what lies under p, topmost first: the help overlay, an
// open menu, the toolbar, the timeline, the logs panel's cells, cut marks,
// members, messages (the latest drawn on top), members' labels and client
// boxes.
func HitTest(f *Frame, p Point, help bool) Hit {
	if help {
		return Hit{Kind: HitHelp}
	}
	if f.Menu != nil && f.Menu.R.Contains(p) {
		for _, it := range f.Menu.Items {
			if it.Enabled && it.R.Contains(p) {
				return Hit{Kind: HitMenuItem, Action: it.Action, Name: f.Menu.Target}
			}
		}
		return Hit{Kind: HitMenuOther}
	}
	for _, b := range f.L.Buttons {
		if b.Rect.Contains(p) {
			return Hit{Kind: HitButton, Action: b.Action}
		}
	}
	if f.L.Timeline.Contains(p) {
		return Hit{Kind: HitTimeline}
	}
	if f.L.Logs.Contains(p) {
		for _, r := range f.LogPanel().Rows {
			for _, c := range r.Cells {
				if c.R.Contains(p) && !c.Compacted {
					return Hit{Kind: HitLogCell, Name: r.Name, Cell: c}
				}
			}
		}
	}
	if !f.L.Ring.Contains(p) {
		return Hit{}
	}
	s := f.L.S
	for _, c := range f.Cuts {
		if p.Sub(c.P).Len() <= 10*s {
			return Hit{Kind: HitCut, Cut: c}
		}
	}
	for i, m := range f.View.Members {
		if p.Sub(f.Ring.Pos[i]).Len() <= f.Ring.NodeR+4*s {
			return Hit{Kind: HitMember, Name: m.Name}
		}
	}
	for i := len(f.Msgs) - 1; i >= 0; i-- {
		m := f.Msgs[i]
		if p.Sub(m.P).Len() <= m.Style.Size*s+3*s {
			return Hit{Kind: HitMessage, Msg: m.M}
		}
	}
	for i, r := range f.Labels {
		if r.Contains(p) && i < len(f.View.Members) {
			return Hit{Kind: HitLabel, Name: f.View.Members[i].Name}
		}
	}
	for _, c := range f.Clients {
		if c.R.Contains(p) {
			return Hit{Kind: HitClient, Name: c.Name}
		}
	}
	return Hit{}
}

// Where returns the centre of a member or a client box by name.
func (f *Frame) Where(name string) (Point, bool) {
	if i, ok := f.Names[name]; ok {
		return f.Ring.Pos[i], true
	}
	for _, c := range f.Clients {
		if c.Name == name {
			return c.R.Center(), true
		}
	}
	// A message in flight, by its type ("MsgVoteResp", or
	// "MsgVoteResp-reject" for a rejection): the newest one a click there
	// lands on.
	typ, reject := strings.CutSuffix(name, "-reject")
	for i := len(f.Msgs) - 1; i >= 0; i-- {
		m := f.Msgs[i]
		if m.M.Type.String() == typ && (!reject || m.M.Reject) && HitTest(f, m.P, false).Kind == HitMessage {
			return m.P, true
		}
	}
	return Point{}, false
}
