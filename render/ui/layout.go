package ui

import (
	"math"

	"github.com/raftsim/raftsim/i18n"
)

// Layout is where each part of the window goes. It depends only on the
// window size and the scale, never on what is drawn in it, so panels do
// not jump about as the cluster changes.
type Layout struct {
	W, H  float64
	Scale float64
	Lang  i18n.Lang // the language of the words laid out

	Toolbar  Rect // time, speed, play state and buttons
	Legend   Rect // what each colour and glyph means
	Ring     Rect // the members on a ring, their links and messages
	Logs     Rect // one row per member, one cell per entry
	State    Rect // each member's KV contents
	Clients  Rect // client requests and their paths
	Caption  Rect // the latest caption, or a hint
	Timeline Rect // events along virtual time, and the scrubber

	// Box is the command box, when it is open (else empty): scrollback
	// above a one-line input, under the ring and the panels.
	Box      Rect
	BoxLines int // how many scrollback lines it shows

	Buttons []Button // in the toolbar
}

// Button is a clickable control in the toolbar.
type Button struct {
	Action Action
	Label  string
	Key    string // its keyboard shortcut, shown in the help overlay
	Rect   Rect
}

// Named returns the layout's panels with their names, for overlap checks.
func (l Layout) Named() map[string]Rect {
	m := map[string]Rect{"toolbar": l.Toolbar, "legend": l.Legend, "ring": l.Ring, "logs": l.Logs,
		"state": l.State, "clients": l.Clients, "caption": l.Caption, "timeline": l.Timeline}
	if l.BoxLines > 0 {
		m["command box"] = l.Box
	}
	return m
}

// BoxLineH is the height of a scrollback line in the command box.
func (l Layout) BoxLineH() float64 { return math.Round(15 * l.Scale) }

// BoxInput returns the command box's input row.
func (l Layout) BoxInput() Rect {
	h := l.LineH() + math.Round(6*l.Scale)
	return Rect{l.Box.X, l.Box.Bottom() - h, l.Box.W, h}
}

// Em is the base font size at the layout's scale.
func (l Layout) Em() float64 { return 13 * l.Scale }

// LineH is the height of one line of text.
func (l Layout) LineH() float64 { return math.Round(18 * l.Scale) }

// Screen is what a layout is made for: the window, the scale, the
// language, and which parts are shown.
type Screen struct {
	W, H  int
	Scale float64 // 1 = normal; 1.5 or 2 for a projector
	Lang  i18n.Lang
	Box   bool // the command box is open
}

// ComputeLayout lays out a w×h window at a scale (1 = normal; 1.5 or 2 for
// a projector), in English. Panels never overlap, and all lie inside the
// window.
func ComputeLayout(w, h int, scale float64) Layout { return Lay(Screen{W: w, H: h, Scale: scale}) }

// Lay lays out a screen. The open command box takes a strip under the
// ring and the panels, above the caption, so that it hides nothing; they
// shrink to make room.
func Lay(sc Screen) Layout {
	scale, box := sc.Scale, sc.Box
	if scale <= 0 {
		scale = 1
	}
	W, H := float64(sc.W), float64(sc.H)
	s := scale
	gap := math.Round(6 * s)
	l := Layout{W: W, H: H, Scale: s, Lang: sc.Lang}
	toolbarH := math.Round(34 * s)
	timelineH := math.Round(64 * s)
	captionH := math.Round(44 * s)
	l.Toolbar = Rect{0, 0, W, toolbarH}
	l.Timeline = Rect{0, H - timelineH, W, timelineH}
	l.Caption = Rect{gap, l.Timeline.Y - captionH - gap, W - 2*gap, captionH}
	top := toolbarH + gap
	bottom := l.Caption.Y - gap
	legendW := math.Min(math.Round(180*s), W*0.2)
	l.Legend = Rect{gap, top, legendW, math.Max(0, bottom-top)}
	ringX := l.Legend.Right() + gap
	if box {
		// The box sits under the ring and the panels, beside the legend,
		// which keeps its height.
		header := l.BoxLineH() + math.Round(6*s)
		input := l.LineH() + math.Round(6*s)
		n := int((H*0.2 - header - input) / l.BoxLineH())
		l.BoxLines = max(3, min(12, n))
		boxH := header + float64(l.BoxLines)*l.BoxLineH() + input + math.Round(4*s)
		l.Box = Rect{ringX, bottom - boxH, W - ringX - gap, boxH}
		bottom = l.Box.Y - gap
	}
	midH := math.Max(0, bottom-top)

	ringW := math.Max(0, math.Round((W-ringX)*0.48))
	l.Ring = Rect{ringX, top, ringW, midH}
	rightX := l.Ring.Right() + gap
	rightW := math.Max(0, W-rightX-gap)
	logsH := math.Round(midH * 0.42)
	stateH := math.Round(midH * 0.26)
	l.Logs = Rect{rightX, top, rightW, math.Max(0, logsH-gap)}
	l.State = Rect{rightX, top + logsH, rightW, math.Max(0, stateH-gap)}
	l.Clients = Rect{rightX, top + logsH + stateH, rightW, math.Max(0, midH-logsH-stateH)}
	l.Buttons = toolbarButtons(l)
	return l
}

// toolbarButtons places the toolbar's buttons from the right edge.
func toolbarButtons(l Layout) []Button {
	s := l.Scale
	h := math.Round(24 * s)
	y := l.Toolbar.Y + (l.Toolbar.H-h)/2
	x := l.W - math.Round(6*s)
	var out []Button
	for i := len(toolbar) - 1; i >= 0; i-- {
		b := toolbar[i]
		w := math.Round((float64(textWidthEstimate(l.Lang.T(b.Label)))*7.2 + 16) * s)
		x -= w
		b.Rect = Rect{x, y, w, h}
		x -= math.Round(4 * s)
		out = append(out, b)
	}
	// Keep them in reading order.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// textWidthEstimate counts characters, a wide (CJK) one as two, for sizing
// controls before any font is loaded.
func textWidthEstimate(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x2e80 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// toolbar lists the toolbar's buttons in order.
var toolbar = []Button{
	{Action: ActPlayPause, Label: i18n.N("play/pause"), Key: "space"},
	{Action: ActStepEvent, Label: i18n.N("next event"), Key: "n"},
	{Action: ActStepDelivery, Label: i18n.N("next delivery"), Key: "m"},
	{Action: ActSlower, Label: i18n.N("slower"), Key: "-"},
	{Action: ActFaster, Label: i18n.N("faster"), Key: "+"},
	{Action: ActHeal, Label: i18n.N("heal all"), Key: "h"},
	{Action: ActUndo, Label: i18n.N("undo"), Key: "z"},
	{Action: ActSave, Label: i18n.N("save"), Key: "s"},
	{Action: ActHelp, Label: i18n.N("help"), Key: "?"},
}

// Ring is the geometry of the cluster view: where each member sits.
type Ring struct {
	Center   Point
	RX, RY   float64 // the radii of the ellipse the members sit on
	NodeR    float64 // of a member's shape
	Pos      []Point // Pos[i] is member i's centre, in View order
	ClientW  float64 // the size of a client box beside a member
	ClientH  float64
	LabelTop float64 // how far below a member's centre its labels start
	Hosts    bool    // drawn as hosts: client boxes under the labels
}

// RingLayout places n members evenly on an ellipse in r, the first at the
// top, going clockwise. It leaves room beside each member for its local
// client's box, and below it for two lines of labels.
func RingLayout(n int, r Rect, scale float64) Ring { return RingLayoutFor(n, r, scale, false) }

// RingLayoutFor is RingLayout for a cluster drawn as hosts (a topology):
// each member's client box goes under its labels, so that the host
// around them is narrow, and the ring can be wider.
func RingLayoutFor(n int, r Rect, scale float64, hosts bool) Ring {
	s := scale
	nodeR := math.Round(26 * s)
	g := Ring{NodeR: nodeR, ClientW: math.Round(76 * s), ClientH: math.Round(20 * s), LabelTop: nodeR + math.Round(10*s), Hosts: hosts}
	side := nodeR + 12*s + g.ClientW + 6*s
	if hosts {
		side = math.Round(62*s) + 8*s   // half a label, and the host's edge
		g.ClientW = math.Round(112 * s) // room for "apiserver-2 · down"
	}
	below := g.LabelTop + 2*math.Round(18*s) + 4*s + g.ClientH + 6*s
	above := nodeR + 12*s + g.ClientH + 6*s
	c := r.Center()
	c.Y += (above - below) / 2
	g.RX = math.Max(nodeR, r.W/2-side)
	g.RY = math.Max(nodeR, math.Min(r.H/2-(above+below)/2, g.RX*1.3))
	g.Center = c
	if n > 0 {
		// Shrink the nodes when many members crowd the ring.
		chord := 2 * math.Min(g.RX, g.RY) * math.Sin(math.Pi/float64(max(n, 2)))
		g.NodeR = math.Max(10*s, math.Min(nodeR, chord/2-8*s))
	}
	for i := range n {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(n)
		g.Pos = append(g.Pos, Point{c.X + g.RX*math.Cos(a), c.Y + g.RY*math.Sin(a)})
	}
	return g
}

// Outward returns the unit vector from the ring's centre to member i.
func (g Ring) Outward(i int) Point {
	d := g.Pos[i].Sub(g.Center)
	l := d.Len()
	if l == 0 {
		return Point{0, -1}
	}
	return d.Scale(1 / l)
}
