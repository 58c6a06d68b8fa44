package ui

import (
	"math"
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
	Menu    *MenuDraw

	Track Rect
	Span  sim.Time
	Head  sim.Time
	Marks []Mark
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
	// Endpoints, for a client with several, in failover order; Pinned is
	// the one its last request went to (clientv3 stays there).
	Endpoints []string
	Chips     []Rect // where each endpoint is written
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
	Target string // member or client name
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
	f := &Frame{L: l, View: v, Names: map[string]int{}}
	f.Ring = RingLayoutFor(len(v.Members), RingArea(l, v), l.Scale, a.S.World().Config().Topology != "")
	for i, m := range v.Members {
		f.Names[m.Name] = i
	}
	s := l.Scale
	lineH := l.LineH()
	labelW := 124 * s
	if n := len(v.Members); n > 1 {
		// Neighbours at the bottom of the ring are closest side by side.
		labelW = min(labelW, 2*f.Ring.RX*math.Sin(math.Pi/float64(n))-8*s)
	}
	for i := range v.Members {
		p := f.Ring.Pos[i]
		f.Labels = append(f.Labels, Rect{p.X - labelW/2, p.Y + f.Ring.LabelTop, labelW, 2 * lineH})
	}
	f.placeClients(a)
	if a.S.World().Config().Topology != "" {
		f.placeHosts()
	}
	f.placeMessages(a)
	f.placeDrops(a)
	f.placeCuts()
	if a.menu != nil {
		f.Menu = a.buildMenu(f)
	}
	f.Head = a.S.Head()
	f.Span = Span(f.Head)
	f.Track = Track(l)
	f.Marks = a.S.Marks()
	return f
}

func (f *Frame) placeClients(a *App) {
	s := f.L.Scale
	bw, bh := f.Ring.ClientW, f.Ring.ClientH
	pending := map[string]int{}
	for _, op := range f.View.Ops {
		if op.Status == sim.OpPending && op.Kind != sim.OpWatch {
			pending[op.Client]++
		}
	}
	f.placeExternal(pending)
	for _, c := range f.View.Clients {
		if len(c.Endpoints) != 1 {
			continue
		}
		i, ok := f.Names[c.Endpoints[0]]
		if !ok {
			continue
		}
		p, out := f.Ring.Pos[i], f.Ring.Outward(i)
		var ctr Point
		if f.Ring.Hosts {
			// On the member's host: under its labels, inside the host box.
			ctr = Point{p.X, f.Labels[i].Bottom() + 4*s + bh/2}
		} else if out.Y > 0.3 {
			// Lower members: below their labels.
			lab := f.Labels[i]
			ctr = Point{p.X + out.X*(f.Ring.NodeR+bw/2), lab.Bottom() + 4*s + bh/2}
		} else {
			// Upper members: beside them, outwards (the top one to the
			// right, leaving room above it for the leader's crown).
			dir := 1.0
			if out.X < -0.01 {
				dir = -1
			}
			ctr = Point{p.X + dir*(f.Ring.NodeR+12*s+bw/2), p.Y}
		}
		f.Clients = append(f.Clients, ClientBox{Name: c.Name, Member: c.Endpoints[0],
			R: Rect{ctr.X - bw/2, ctr.Y - bh/2, bw, bh}, Pending: pending[c.Name], Down: !f.View.Members[i].Up})
	}
}

// externalClients returns the clients with several endpoints.
func externalClients(v sim.View) []sim.ClientConfig {
	var out []sim.ClientConfig
	for _, c := range v.Clients {
		if len(c.Endpoints) > 1 {
			out = append(out, c)
		}
	}
	return out
}

// RingArea is the part of the ring panel the members' ring gets: all of
// it, less a strip at the bottom when clients with several endpoints
// (external apiservers) sit there, on their own hosts.
func RingArea(l Layout, v sim.View) Rect {
	r := l.Ring
	if len(externalClients(v)) == 0 {
		return r
	}
	r.H = math.Max(0, r.H-externalStripH(l))
	return r
}

func externalStripH(l Layout) float64 {
	return 2*l.BoxLineH() + math.Round(26*l.Scale)
}

// placeExternal places the clients with several endpoints side by side
// along the bottom of the ring panel: each a box with its name and its
// endpoints, the pinned one (where its last request went) marked.
func (f *Frame) placeExternal(pending map[string]int) {
	ext := externalClients(f.View)
	if len(ext) == 0 {
		return
	}
	s := f.L.Scale
	pad := math.Round(6 * s)
	strip := Rect{f.L.Ring.X + pad, f.L.Ring.Bottom() - externalStripH(f.L) + pad, f.L.Ring.W - 2*pad, externalStripH(f.L) - 2*pad}
	hostPad := math.Round(5 * s)
	n := float64(len(ext))
	w := math.Min(math.Round(210*s), (strip.W-(n-1)*pad)/n)
	x := strip.X + (strip.W-(n*w+(n-1)*pad))/2
	lh := f.L.BoxLineH()
	for _, c := range ext {
		host := Rect{x, strip.Y, w, strip.H}
		r := host.Inset(hostPad)
		pinned := c.Endpoints[0]
		for i := len(f.View.Ops) - 1; i >= 0; i-- {
			if op := f.View.Ops[i]; op.Client == c.Name && op.Member != "" {
				pinned = op.Member
				break
			}
		}
		cb := ClientBox{Name: c.Name, Member: pinned, R: r, Pending: pending[c.Name], Endpoints: c.Endpoints}
		// The endpoints as chips on the second line, each its member's
		// number (etcd-3 → 3), or its name if it has none.
		// Too narrow for them, the box names only the pinned endpoint.
		if chipW := math.Min(math.Round(22*s), (r.W-8*s)/float64(len(c.Endpoints))-2*s); chipW >= 11*s {
			for k := range c.Endpoints {
				cb.Chips = append(cb.Chips, Rect{r.X + 4*s + float64(k)*(chipW+2*s), r.Bottom() - lh - 3*s, chipW, lh})
			}
		}
		f.Clients = append(f.Clients, cb)
		f.Hosts = append(f.Hosts, HostBox{R: host, Client: c.Name})
		x += w + pad
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
// stacked apiserver): room for the timer arc, the crown, the labels and
// the client box.
func (f *Frame) placeHosts() {
	s := f.L.Scale
	pad := math.Round(4 * s)
	R := f.Ring.NodeR
	for i, m := range f.View.Members {
		if m.Role == sim.RoleRemoved {
			continue
		}
		p := f.Ring.Pos[i]
		top := p.Y - R - 9*s - R*0.4 // the crown
		r := Rect{p.X - R - 12*s, top, 2 * (R + 12*s), p.Y + R + 12*s - top}
		r = union(r, f.Labels[i])
		h := HostBox{Member: m.Name, Down: !m.Up}
		for _, c := range f.Clients {
			if c.Member == m.Name && len(c.Endpoints) == 0 {
				r = union(r, c.R)
				h.Client = c.Name
			}
		}
		h.R = Rect{r.X - pad, r.Y - pad, r.W + 2*pad, r.H + 2*pad}
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
		p, ok := MessagePos(f.Ring, f.Names, m, pos, f.View.Now, f.L.Scale)
		if !ok {
			continue
		}
		f.Msgs = append(f.Msgs, MsgDraw{M: m, P: p, Style: StyleOfMessage(m.Type)})
	}
}

func (f *Frame) placeDrops(a *App) {
	w := a.S.World()
	window := max(sim.Time(dropMarkWindow), sim.Time(float64(time.Second)*a.Speed()))
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
	for i := w.HistoryLen() - 1; i >= 0; i-- {
		e := w.EventAt(i)
		if e.At <= f.View.Now-window {
			break
		}
		if e.Kind != sim.EvDrop {
			continue
		}
		p, ok := DropPos(f.Ring, f.Names, name(e.Node), name(e.Peer), e.Reason, f.L.Scale)
		if !ok {
			continue
		}
		f.Drops = append(f.Drops, DropDraw{P: p, Reason: e.Reason, Msg: e.Msg,
			Age:      float64(f.View.Now-e.At) / float64(window),
			Labelled: e.Reason != netmodel.DropCut || !cut[[2]string{name(e.Node), name(e.Peer)}]})
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
		d := CutDraw{From: c.From, To: c.To, Both: both}
		d.P, _ = CutMark(f.Ring, f.Names, c.From, c.To, both, f.L.Scale)
		if both {
			d.A, d.B = f.Ring.Pos[i], f.Ring.Pos[j]
		} else {
			d.A, d.B = Lane(f.Ring.Pos[i], f.Ring.Pos[j], f.Ring.NodeR, laneOffset(f.L.Scale))
		}
		f.Cuts = append(f.Cuts, d)
	}
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
	HitClient
)

// Hit is what HitTest found.
type Hit struct {
	Kind   HitKind
	Action Action          // HitButton, HitMenuItem
	Name   string          // HitMember, HitClient: its name
	Msg    sim.MessageView // HitMessage
	Cut    CutDraw         // HitCut
}

// HitTest returns what lies under p, topmost first: the help overlay, an
// open menu, the toolbar, the timeline, cut marks, messages (the latest
// drawn on top), members and client boxes.
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
	if !f.L.Ring.Contains(p) {
		return Hit{}
	}
	s := f.L.Scale
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
	return Point{}, false
}
