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
	Msgs    []MsgDraw
	Drops   []DropDraw
	Cuts    []CutDraw
	Menu    *MenuDraw

	Track Rect
	Span  sim.Time
	Head  sim.Time
	Marks []Mark
}

// ClientBox is a client bound to one member, drawn beside it.
type ClientBox struct {
	Name, Member string
	R            Rect
	Pending      int
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
	f.Ring = RingLayout(len(v.Members), l.Ring, l.Scale)
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
		if out.Y > 0.3 {
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
			R: Rect{ctr.X - bw/2, ctr.Y - bh/2, bw, bh}, Pending: pending[c.Name]})
	}
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
	h := w.History()
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
	for i := len(h) - 1; i >= 0 && h[i].At > f.View.Now-window; i-- {
		e := h[i]
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
