package ui

import (
	"math"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// Screen is what a layout is made for: the window, the scale asked for,
// the language, which parts are shown, and the shape of the cluster (its
// members' and clients' names decide how wide their labels are).
type Screen struct {
	W, H  int
	Scale float64 // 1 = normal; 1.5 or 2 for a projector
	Lang  i18n.Lang
	Box   bool // the command box is open
	// Present is the projector layout: no legend (unless Legend says
	// Shown), text at least 24 px high on a 1080-line screen, and the ring
	// and the logs get the room.
	Present bool
	Legend  LegendMode
	Cluster ClusterShape
	// Captions are the texts the caption area must hold without cutting a
	// word (a lesson's captions and questions); it is made tall enough for
	// the longest, up to MaxCaptionLines lines.
	Captions []string
	// Title is what the header names (App.HeaderTitle): the layout keeps
	// room for at least its first TitleKeeps characters.
	Title string
	// Pins is the most requests a lesson's step names (its shows:): the
	// clients panel is made tall enough to keep them all in sight.
	Pins int
	// M measures text; nil means the window's own font (typeface.Find).
	M Measurer
}

// LegendMode says whether the legend is shown.
type LegendMode uint8

// The legend modes.
const (
	// LegendAuto shows the legend as a column beside the ring when it fits
	// there, and hides it when it does not (a small window, a large scale).
	LegendAuto LegendMode = iota
	// LegendShown shows it as a column if it fits, else over the ring
	// panel (L).
	LegendShown
	// LegendHidden hides it (the projector layout, until L).
	LegendHidden
)

// ClusterShape is what of the cluster the layout depends on.
type ClusterShape struct {
	Members []string           // member names, in ID order
	Clients []sim.ClientConfig // the configured clients
	Hosts   bool               // drawn as hosts (a Kubernetes topology)
}

// ShapeOf returns the shape of a cluster built from cfg, with the
// clients its topology builds (the kube-apiservers), read from the
// configuration (sim.Config.ClientConfigs): no world is built.
func ShapeOf(cfg sim.Config) ClusterShape {
	return ClusterShape{Members: cfg.Members, Clients: cfg.ClientConfigs(), Hosts: cfg.Topology != ""}
}

// ViewShape returns the shape of the cluster in a View (members added
// since the start included).
func ViewShape(v sim.View, hosts bool) ClusterShape {
	cs := ClusterShape{Clients: append(v.Clients[:len(v.Clients):len(v.Clients)], viewWireClients(v)...), Hosts: hosts}
	for _, m := range v.Members {
		cs.Members = append(cs.Members, m.Name)
	}
	return cs
}

// MaxCaptionLines is the most lines of caption text the caption area is
// made tall enough for.
const MaxCaptionLines = 4

// Layout is where each part of the window goes, and how large its text
// is. It depends on the window, the scale, the language and the shape of
// the cluster, never on what happens in it, so panels do not jump about
// as the cluster changes.
type Layout struct {
	W, H  float64
	Scale float64 // the scale asked for
	Lang  i18n.Lang
	M     Measurer

	// S is the scale text and shapes are drawn at: Scale (in the
	// projector layout at least what makes text 24 px high on a 1080-line
	// screen), or less where the window cannot hold everything at that
	// scale. Fits says whether it holds everything even so.
	S    float64
	Fits bool
	// Short says what did not fit at the scale asked for (for the status
	// line and for the tests).
	Short []string
	// Small, Normal and Big are the font sizes, in pixels.
	Small, Normal, Big float64

	Present bool
	// LegendShown says the legend is drawn; LegendOver, that it is drawn
	// over the ring panel because no column beside it is wide enough.
	LegendShown, LegendOver bool
	LegendCols              int // columns of legend entries

	Toolbar  Rect // time, speed, play state and buttons
	Legend   Rect // what each colour and glyph means
	Ring     Rect // the members on a ring, their links and messages
	Logs     Rect // one row per member, one cell per entry
	State    Rect // each member's KV contents
	Clients  Rect // client requests and their paths
	Caption  Rect // the caption, the chapter and the status line
	Timeline Rect // events along virtual time, and the scrubber

	// CaptionLines is how many lines of caption text (in Big) the caption
	// area holds.
	CaptionLines int

	// Box is the command box, when it is open (else empty): scrollback
	// above a one-line input, under the ring and the panels.
	Box      Rect
	BoxLines int // how many scrollback lines it shows

	Buttons []Button // in the toolbar, those that fit (and the menu button, if some do not)
	// MenuButtons are the buttons that gave way to the title and the
	// clock: the menu button lists them.
	MenuButtons []Button
	// TitleMin is the least room the header's title keeps: its first
	// TitleKeeps characters and an ellipsis, or all of it.
	TitleMin float64
	// HeaderFields is where the header's clock, rate and state go: between
	// the title's shortest form and the buttons.
	HeaderFields Rect

	Members Ring    // where each member and its labels go
	Log     LogGrid // the logs panel's columns and rows
}

// Button is a clickable control in the toolbar.
type Button struct {
	Action Action
	Label  string // English, the catalog's key
	Key    string // its keyboard shortcut, shown in the help overlay
	Rect   Rect
}

// Named returns the layout's panels with their names, for overlap checks.
func (l Layout) Named() map[string]Rect {
	m := map[string]Rect{"toolbar": l.Toolbar, "ring": l.Ring, "logs": l.Logs,
		"state": l.State, "clients": l.Clients, "caption": l.Caption, "timeline": l.Timeline}
	if l.LegendShown && !l.LegendOver {
		m["legend"] = l.Legend
	}
	if l.BoxLines > 0 {
		m["command box"] = l.Box
	}
	return m
}

// Px returns v pixels at the layout's scale, rounded.
func (l Layout) Px(v float64) float64 { return math.Round(v * l.S) }

// LineH is the height of one line of normal text.
func (l Layout) LineH() float64 { return LineH(l.Normal) }

// SmallH is the height of one line of small text.
func (l Layout) SmallH() float64 { return LineH(l.Small) }

// RowH is the height of a row of a table of small text (the state
// machines).
func (l Layout) RowH() float64 { return math.Round(l.Small * 1.25) }

// MonoSize is the command box's font size.
func (l Layout) MonoSize() float64 { return math.Round(11 * l.S) }

// BoxLineH is the height of a scrollback line in the command box.
func (l Layout) BoxLineH() float64 { return LineH(l.MonoSize()) }

// BoxInput returns the command box's input row.
func (l Layout) BoxInput() Rect {
	h := l.BoxLineH() + l.Px(6)
	return Rect{l.Box.X, l.Box.Bottom() - h, l.Box.W, h}
}

// Width measures s at a font size.
func (l Layout) Width(s string, size float64) float64 { return l.M.Advance(s, size) }

// ComputeLayout lays out a w×h window at a scale (1 = normal; 1.5 or 2 for
// a projector), in English, for the default sandbox. Panels never overlap,
// and all lie inside the window.
func ComputeLayout(w, h int, scale float64) Layout {
	return Lay(Screen{W: w, H: h, Scale: scale, Cluster: ShapeOf(sim.SandboxConfig())})
}

// Lay lays out a screen: at the scale asked for if everything fits there,
// else at the largest scale below it that fits (down to 3/4 of 1).
func Lay(sc Screen) Layout {
	if sc.M == nil {
		sc.M = WindowFont()
	}
	if sc.Scale <= 0 {
		sc.Scale = 1
	}
	target := sc.Scale
	if sc.Present {
		// Small text (12 px at scale 1) 24 px high at 1080 lines.
		target = max(target, float64(sc.H)/540)
	}
	const floor = 0.75
	var l Layout
	for s := target; ; s *= 0.98 {
		s = math.Max(s, math.Min(floor, target))
		l = layAt(sc, s)
		if l.Fits || s <= floor {
			return l
		}
	}
}

// layAt lays out a screen with text and shapes at scale s, and says in
// Fits whether everything fits.
func layAt(sc Screen, s float64) Layout {
	W, H := float64(sc.W), float64(sc.H)
	l := Layout{W: W, H: H, Scale: sc.Scale, Lang: sc.Lang, M: sc.M, S: s, Present: sc.Present, Fits: true}
	l.Small, l.Normal, l.Big = math.Round(12*s), math.Round(14*s), math.Round(17*s)
	gap := l.Px(6)

	// The header.
	toolbarH := LineH(l.Normal) + 2*l.Px(5)
	l.Toolbar = Rect{0, 0, W, toolbarH}
	l.placeButtons(sc.Title)

	// The timeline, and the caption area above it.
	timelineH := l.Px(6) + l.trackH() + l.Px(2) + l.SmallH() + l.Px(2)
	l.Timeline = Rect{0, H - timelineH, W, timelineH}
	l.CaptionLines = 2
	captionTextW := W - 2*gap - 2*l.Px(10)
	for _, c := range sc.Captions {
		n := len(Wrap(sc.M, c, l.Big, captionTextW))
		if n > MaxCaptionLines {
			l.short("a caption needs more lines than the caption area has")
		}
		l.CaptionLines = max(l.CaptionLines, min(MaxCaptionLines, n))
	}
	captionH := l.Px(5) + l.LineH() + float64(l.CaptionLines)*LineH(l.Big) + l.Px(6)
	l.Caption = Rect{gap, l.Timeline.Y - captionH - gap, W - 2*gap, captionH}

	top := toolbarH + gap
	bottom := l.Caption.Y - gap
	if sc.Box {
		header := l.BoxLineH() + l.Px(6)
		input := l.BoxLineH() + l.Px(6)
		n := int((H*0.2 - header - input) / l.BoxLineH())
		l.BoxLines = max(3, min(12, n))
		boxH := header + float64(l.BoxLines)*l.BoxLineH() + input + l.Px(4)
		l.Box = Rect{gap, bottom - boxH, W - 2*gap, boxH}
		bottom = l.Box.Y - gap
	}
	midH := bottom - top
	if midH <= 0 {
		l.short("no room between the header and the caption")
		midH = 0
	}

	// The legend: a column on the left, if it is wanted and fits.
	x := gap
	legendW, legendCols := l.legendSize(midH)
	switch {
	case sc.Legend == LegendHidden || sc.Present && sc.Legend == LegendAuto:
	case legendCols == 1 && legendW <= 0.25*W:
		l.LegendShown, l.LegendCols = true, 1
		l.Legend = Rect{x, top, legendW, midH}
		x = l.Legend.Right() + gap
	case sc.Legend == LegendShown:
		// Over the ring panel, in as many columns as it takes.
		l.LegendShown, l.LegendOver = true, true
		l.LegendCols = legendCols
	}
	if sc.Box {
		l.Box.X = x
		l.Box.W = W - x - gap
	}

	// The right column: logs, state machines, client requests; the ring
	// gets the rest, and more of it if the members need it.
	n := max(1, len(sc.Cluster.Members))
	avail := W - x - gap
	l.Log = l.logGrid(sc.Cluster.Members)
	titleH := l.LineH() + l.Px(4)
	logsH := titleH + l.Log.HeaderH + float64(n)*l.Log.RowH + l.Px(6)
	stateH := titleH + float64(n)*l.RowH() + l.Px(6)
	// The clients panel holds at least the requests a lesson's step names
	// (pinned), or the newest one, each a row of up to three lines, and
	// the line that counts the older ones.
	clientsMin := titleH + float64(max(1, sc.Pins))*(3*l.SmallH()+l.Px(3)) + l.SmallH() + l.Px(6)
	var ringShort string
	for _, frac := range []float64{0.42, 0.38, 0.34, 0.30, 0.26} {
		rightW := math.Max(l.Log.MinWidth(), math.Round(avail*frac))
		ringW := avail - rightW - gap
		l.Ring = Rect{x, top, ringW, midH}
		rightX := l.Ring.Right() + gap
		l.Logs = Rect{rightX, top, rightW, logsH}
		var ok bool
		l.Members, ok, ringShort = l.ringFor(sc.Cluster, l.Ring)
		if logsH+stateH+clientsMin+2*gap <= midH {
			// One above the other.
			l.State = Rect{rightX, l.Logs.Bottom() + gap, rightW, stateH}
			l.Clients = Rect{rightX, l.State.Bottom() + gap, rightW, math.Max(0, bottom-l.State.Bottom()-gap)}
		} else {
			// Short of height: the state machines and the client requests
			// side by side under the logs.
			y := l.Logs.Bottom() + gap
			h := math.Max(0, bottom-y)
			w := math.Round((rightW - gap) * 0.45)
			l.State = Rect{rightX, y, w, h}
			l.Clients = Rect{rightX + w + gap, y, rightW - w - gap, h}
		}
		if ok || rightW <= l.Log.MinWidth() {
			break
		}
	}
	if ringShort != "" {
		l.short(ringShort)
	}
	if l.Logs.W > avail*0.62 {
		l.short("the logs panel is too wide")
	}
	if logsH+math.Max(stateH, clientsMin)+gap > midH {
		l.short("the logs, state and clients panels are too tall")
	}
	l.Log.place(l.Logs, titleH)
	if l.LegendOver {
		w, _ := l.legendSize(l.Ring.H - 2*gap)
		l.Legend = Rect{l.Ring.X + gap, l.Ring.Y + gap, math.Min(w*float64(l.LegendCols), l.Ring.W-2*gap), l.Ring.H - 2*gap}
	}
	if l.Toolbar.W < l.minHeaderW() {
		l.short("the header is too narrow")
	}
	return l
}

// short notes that something does not fit.
func (l *Layout) short(why string) {
	l.Fits = false
	l.Short = append(l.Short, why)
}

// trackH is the height of the timeline's track: a row for each kind of
// mark.
func (l Layout) trackH() float64 { return float64(len(MarkKinds)) * math.Max(5, l.Px(4.5)) }

// toolbar lists the toolbar's buttons in order, with the order in which
// they give way when the header is short of room (the highest first).
var toolbar = []struct {
	Button
	drop int
}{
	{Button{Action: ActPlayPause, Label: i18n.N("play/pause"), Key: "space"}, 0},
	{Button{Action: ActStepEvent, Label: i18n.N("next event"), Key: "n"}, 1},
	{Button{Action: ActStepDelivery, Label: i18n.N("next delivery"), Key: "m"}, 3},
	{Button{Action: ActSlower, Label: i18n.N("slower"), Key: "-"}, 4},
	{Button{Action: ActFaster, Label: i18n.N("faster"), Key: "+"}, 4},
	{Button{Action: ActHeal, Label: i18n.N("heal all"), Key: "h"}, 5},
	{Button{Action: ActUndo, Label: i18n.N("undo"), Key: "z"}, 6},
	{Button{Action: ActSave, Label: i18n.N("save"), Key: "s"}, 7},
	{Button{Action: ActLegend, Label: i18n.N("legend"), Key: "L"}, 5},
	{Button{Action: ActHelp, Label: i18n.N("help"), Key: "?"}, 2},
}

// menuButton holds the buttons that gave way.
var menuButton = Button{Action: ActMenu, Label: i18n.N("menu")}

// TitleKeeps is how many characters of its title the header keeps at the
// least (Chinese counted in characters): the title comes before the step,
// the clock and the rate, and the buttons give way first.
const TitleKeeps = 24

// TitleMin returns the least of a title the header shows: its first
// TitleKeeps characters and an ellipsis, or the whole title if it is no
// longer.
func TitleMin(title string) string {
	r := []rune(title)
	if len(r) <= TitleKeeps {
		return title
	}
	return string(r[:TitleKeeps]) + "…"
}

// headerSamples are the widest texts the header's fields are laid out
// for: the step, the time, the rate (and its mode) and the play state.
// The App's own words for them are measured when drawn (PlaceHeader);
// these reserve the room.
func (l Layout) headerSamples() []string {
	lang := l.Lang
	state := ""
	for _, s := range []string{i18n.N("|| scenario pause"), i18n.N("|| choosing a lesson"), i18n.N("|| question"),
		i18n.N("|| reading"), i18n.N("|| paused"), i18n.N("▶ playing"), i18n.N("■ stopped"), i18n.N("■ end")} {
		if l.Width(lang.T(s), l.Normal) > l.Width(state, l.Normal) {
			state = lang.T(s)
		}
	}
	mode := lang.T("adaptive") + " ×1/8"
	if l.Width(lang.T("fixed"), l.Normal) > l.Width(mode, l.Normal) {
		mode = lang.T("fixed")
	}
	return []string{lang.F("step %d/%d", 99, 99), "t = 00.000000s", "1/1000× " + mode, state}
}

// minHeaderW is the least width the header needs: the title's least, the
// fields, and the buttons that are left.
func (l Layout) minHeaderW() float64 {
	w := l.Px(10) + l.TitleMin + l.Px(16) + l.HeaderFields.W
	for _, b := range l.Buttons {
		w += b.Rect.W + l.Px(4)
	}
	return w + l.Px(6)
}

// placeButtons places the buttons from the right edge. When they do not
// all fit beside the title's least, the fields and the clock, they give
// way in their order, into one menu button that lists them.
func (l *Layout) placeButtons(title string) {
	fields := 0.0
	for _, s := range l.headerSamples() {
		fields += l.Width(s, l.Normal) + l.Px(16)
	}
	l.HeaderFields.W = fields
	if title == "" {
		title = "raftsim · sandbox"
	}
	l.TitleMin = l.Width(TitleMin(title), l.Normal)
	titleMin := l.Px(10) + l.TitleMin + l.Px(16)
	h := LineH(l.Normal) + l.Px(4)
	y := l.Toolbar.Y + (l.Toolbar.H-h)/2
	width := func(b Button) float64 { return l.Width(l.Lang.T(b.Label), l.Normal) + 2*l.Px(8) }
	for drop := 8; drop >= -1; drop-- {
		var kept, gone []Button
		total := 0.0
		for _, t := range toolbar {
			b := t.Button
			b.Rect.W = width(b)
			if t.drop > drop {
				gone = append(gone, b)
				continue
			}
			total += b.Rect.W + l.Px(4)
			kept = append(kept, b)
		}
		if len(gone) > 0 {
			m := menuButton
			m.Rect.W = width(m)
			total += m.Rect.W + l.Px(4)
			kept = append(kept, m)
		}
		if titleMin+fields+total+l.Px(6) <= l.W || drop < 0 {
			x := l.W - l.Px(6) - total + l.Px(4)
			for i := range kept {
				kept[i].Rect.X, kept[i].Rect.Y, kept[i].Rect.H = x, y, h
				x += kept[i].Rect.W + l.Px(4)
			}
			l.Buttons, l.MenuButtons = kept, gone
			right := l.W - l.Px(6)
			if len(kept) > 0 {
				right = kept[0].Rect.X - l.Px(8)
			}
			l.HeaderFields = Rect{right - fields, l.Toolbar.Y, fields, l.Toolbar.H}
			return
		}
	}
}

// legendSize returns the width of one column of the legend and how many
// columns of height h it takes.
func (l Layout) legendSize(h float64) (colW float64, cols int) {
	used, cols := 0.0, 1
	for _, e := range Legend() {
		lh, w := l.legendLine(e)
		colW = math.Max(colW, w)
		if used+lh > h-l.Px(8) && used > 0 {
			cols++
			used = 0
		}
		used += lh
	}
	return colW + 2*l.Px(8), cols
}

// legendLine returns the height and the width of a legend entry.
func (l Layout) legendLine(e LegendEntry) (h, w float64) {
	if e.Heading() {
		return LineH(l.Normal) + l.Px(4), l.Width(l.Lang.T(e.Label), l.Normal)
	}
	return math.Max(l.SmallH(), l.Px(17)), l.Px(26) + l.Width(l.Lang.T(e.Label), l.Small)
}

// LegendSlots places the legend's entries: each heading or icon row in
// its column, top to bottom.
func (l Layout) LegendSlots() []LegendSlot {
	var out []LegendSlot
	pad := l.Px(8)
	colW := (l.Legend.W - 2*pad) / float64(max(1, l.LegendCols))
	x, y := l.Legend.X+pad, l.Legend.Y+l.Px(6)
	for _, e := range Legend() {
		lh, _ := l.legendLine(e)
		if y+lh > l.Legend.Bottom()-l.Px(2) && y > l.Legend.Y+l.Px(6) {
			x += colW
			y = l.Legend.Y + l.Px(6)
		}
		sl := LegendSlot{Entry: e, Row: Rect{x, y, colW, lh}}
		if e.Heading() {
			sl.Text = TextItem{S: l.Lang.T(e.Label), Size: l.Normal, R: Rect{x, y + l.Px(2), colW, LineH(l.Normal)}, Color: Muted}
		} else {
			sl.Icon = Point{x + l.Px(9), y + lh/2}
			tx := x + l.Px(26)
			sl.Text = TextItem{S: l.Lang.T(e.Label), Size: l.Small, R: Rect{tx, y + (lh-l.SmallH())/2, colW - (tx - x), l.SmallH()}, Color: Ink}
		}
		out = append(out, sl)
		y += lh
	}
	return out
}

// LegendSlot is a legend entry, placed.
type LegendSlot struct {
	Entry LegendEntry
	Row   Rect
	Icon  Point // the icon's centre
	Text  TextItem
}

// LogGrid is how the logs panel is laid out: a name column, a column of
// each member's commit index, the cells, and a column of a leader's view
// of each follower's progress (two, when two members lead).
type LogGrid struct {
	NameW, CommitW, CellW, CellH, ProgW float64
	// ProgShortW is a progress column without the state word ("14 · 15"),
	// for when two leaders' views must fit beside a few cells.
	ProgShortW    float64
	RowH, HeaderH float64
	// Cells is how many cells fit beside one progress column; CellsX
	// where they start; Top where the first row starts (under the two
	// header lines: whose view, then the index numbers); Right where the
	// progress columns end.
	Cells              int
	CellsX, Top, Right float64
}

// progSamples are the widest texts of the progress column.
var progSamples = []string{"999 · 999 · ", i18n.N("replicate"), i18n.N("snapshot"), i18n.N("probe"), i18n.N("leader"), i18n.N("match · next · state")}

// ViewHeading is the heading of a leader's progress column: whose view of
// its followers it is.
func ViewHeading(lang i18n.Lang, leader string) string { return lang.F("%s's view", leader) }

func (l Layout) logGrid(names []string) LogGrid {
	g := LogGrid{}
	for _, n := range names {
		g.NameW = math.Max(g.NameW, l.Width(n, l.Small))
	}
	g.NameW = math.Max(g.NameW, l.Width("etcd-10", l.Small)) + l.Px(8)
	g.CommitW = math.Ceil(math.Max(l.Width(l.Lang.T("commit"), l.Small), l.Width("9999", l.Small)) + l.Px(8))
	g.CellW = math.Ceil(math.Max(l.Width("99", l.Small)+l.Px(6), l.Px(18)))
	g.CellH = math.Round(l.Small * 1.2)
	state := 0.0
	for _, s := range progSamples[1:5] {
		state = math.Max(state, l.Width(l.Lang.T(s), l.Small))
	}
	g.ProgW = math.Max(l.Width(progSamples[0], l.Small)+state, l.Width(l.Lang.T(progSamples[5]), l.Small))
	heading := l.Width(ViewHeading(l.Lang, longestName(append(names, "etcd-10"))), l.Small)
	g.ProgW = math.Max(g.ProgW, heading) + l.Px(8)
	g.ProgShortW = math.Max(math.Max(l.Width("999 · 999", l.Small), l.Width(l.Lang.T("match · next"), l.Small)), heading) + l.Px(8)
	// Under each row of cells: the applied bar, then the Match and Next
	// marks.
	g.RowH = g.CellH + l.Px(10)
	// Two header lines, and room for a row's name, which is taller than
	// its cells when the small font is.
	g.HeaderH = 2*l.SmallH() + math.Max(0, math.Ceil((l.SmallH()-g.CellH)/2))
	return g
}

// MinWidth is the least width the logs panel needs: names, commit
// indexes, six cells and the progress column.
func (g LogGrid) MinWidth() float64 { return g.NameW + g.CommitW + 6*g.CellW + g.ProgW + 24 }

func (g *LogGrid) place(r Rect, titleH float64) {
	g.CellsX = r.X + 8 + g.NameW + g.CommitW
	g.Cells = max(1, int((r.W-16-g.NameW-g.CommitW-g.ProgW)/g.CellW))
	g.Top = r.Y + titleH + g.HeaderH
	g.Right = r.Right() - 8
}

// Ring is the geometry of the cluster view: where each member sits, and
// the room its shape, labels and client box take.
type Ring struct {
	Center   Point
	RX, RY   float64 // the radii of the ellipse the members sit on
	NodeR    float64 // of a member's shape
	NameSize float64 // the font size of the name inside it
	Pos      []Point // Pos[i] is member i's centre, in View order
	// Side says where each member's labels go: always outwards, away
	// from the ring's centre, so that no link leaves a member through its
	// own labels: above the members at the top, under those at the
	// bottom, beside those at the sides.
	Side []LabelSide
	// The labels: LabelLines lines, LabelW wide, each LabelLineH high;
	// under them, the member's client's box.
	LabelW, LabelLineH float64
	LabelLines         int
	ClientW, ClientH   float64
	Hosts              bool // drawn as hosts
	// The member's shape, with its timer arc and crown: Core wide, Above
	// its centre and Under it.
	Core, Above, Under float64
	Edge               float64 // the host's edge around what runs on it
	// Strip is where clients with several endpoints sit, along the bottom
	// of the ring panel (empty if there are none); ExtW and ExtH the size
	// of one such client's box.
	Strip      Rect
	ExtW, ExtH float64
	ChipW      float64 // the width of an endpoint's chip in such a box
}

// LabelSide is where a member's labels go.
type LabelSide uint8

// The sides.
const (
	LabelsBelow LabelSide = iota
	LabelsRight
	LabelsLeft
	LabelsAbove // the labels above the member (its crown), its client's box above them
)

// blockH is the height of a member's labels and its client's box.
func (g Ring) blockH() float64 {
	h := float64(g.LabelLines) * g.LabelLineH
	if g.ClientH > 0 {
		h += g.LabelLineH*0.2 + g.ClientH
	}
	return h
}

func (g Ring) blockW() float64 { return math.Max(g.LabelW, g.ClientW) }

// Labels returns where member i's labels go.
func (g Ring) Labels(i int) Rect {
	p := g.Pos[i]
	h := float64(g.LabelLines) * g.LabelLineH
	switch g.Side[i] {
	case LabelsRight:
		return Rect{p.X + g.Core/2 + g.LabelLineH*0.2, p.Y - g.blockH()/2, g.blockW(), h}
	case LabelsLeft:
		return Rect{p.X - g.Core/2 - g.LabelLineH*0.2 - g.blockW(), p.Y - g.blockH()/2, g.blockW(), h}
	case LabelsAbove:
		return Rect{p.X - g.blockW()/2, p.Y - g.Above - h, g.blockW(), h}
	}
	return Rect{p.X - g.blockW()/2, p.Y + g.Under, g.blockW(), h}
}

// ClientSlot returns where the box of member i's client goes: under its
// labels, or above them when they are above the member (outwards).
func (g Ring) ClientSlot(i int) Rect {
	lab := g.Labels(i)
	if g.Side[i] == LabelsAbove {
		return Rect{lab.X + (lab.W-g.ClientW)/2, lab.Y - g.LabelLineH*0.2 - g.ClientH, g.ClientW, g.ClientH}
	}
	return Rect{lab.X + (lab.W-g.ClientW)/2, lab.Bottom() + g.LabelLineH*0.2, g.ClientW, g.ClientH}
}

// Footprint returns the room member i takes: its crown, shape, labels and
// client box, and its host's edge.
func (g Ring) Footprint(i int) Rect {
	p := g.Pos[i]
	core := Rect{p.X - g.Core/2, p.Y - g.Above, g.Core, g.Above + g.Under}
	r := union(union(core, g.Labels(i)), g.ClientSlot(i))
	return r.Inset(-g.Edge)
}

// Outward returns the unit vector from the ring's centre to member i.
func (g Ring) Outward(i int) Point {
	d := g.Pos[i].Sub(g.Center)
	n := d.Len()
	if n == 0 {
		return Point{0, -1}
	}
	return d.Scale(1 / n)
}

// roleSamples are the words of the first label line, to size it.
var roleSamples = []sim.Role{sim.RoleFollower, sim.RolePreCandidate, sim.RoleCandidate, sim.RoleLeader,
	sim.RoleLearner, sim.RoleDown, sim.RoleStalled, sim.RoleJoining, sim.RoleRemoved}

// ringFor places the members of a cluster on an ellipse in r, the first
// at the top, going clockwise, each with its labels and its client's box
// under it or beside it, and the clients with several endpoints in a
// strip along the bottom. It reports false, and why, if they cannot all
// fit without overlapping.
func (l Layout) ringFor(cs ClusterShape, r Rect) (Ring, bool, string) {
	n := len(cs.Members)
	g := Ring{Hosts: cs.Hosts, LabelLineH: l.SmallH(), LabelLines: 3}
	pad := l.Px(6)

	// The strip of clients with several endpoints.
	var ext []sim.ClientConfig
	for _, c := range cs.Clients {
		if len(c.Endpoints) > 1 {
			ext = append(ext, c)
		}
	}
	if len(ext) > 0 {
		// One line each: the name, then the endpoints as chips, the one
		// its requests go to filled.
		chips, name := 0, 0.0
		for _, c := range ext {
			name = math.Max(name, l.Width(c.Name, l.Small))
			chips = max(chips, len(c.Endpoints))
			g.ChipW = math.Max(g.ChipW, chipW(l, c.Endpoints))
		}
		g.ExtW = math.Ceil(name+l.Px(6)+float64(chips)*(g.ChipW+l.Px(2))) + l.Px(8) + 2*l.Px(5)
		g.ExtH = l.SmallH() + l.Px(6) + 2*l.Px(5)
		perRow := max(1, int((r.W-2*pad+pad)/(g.ExtW+pad)))
		rows := (len(ext) + perRow - 1) / perRow
		h := float64(rows)*(g.ExtH+pad) + pad
		g.Strip = Rect{r.X + pad, r.Bottom() - h, r.W - 2*pad, h - pad}
		if g.ExtW > g.Strip.W {
			return g, false, "an external client's box is wider than the ring panel"
		}
		r.H -= h
	}

	// A member: its name inside its shape, in the normal font if the shape
	// need not grow past 32 px (at scale 1) for it, else (and in the
	// projector layout, whose small font is large) in the small one.
	nameW := 0.0
	g.NameSize = l.Normal
	for _, nm := range cs.Members {
		nameW = math.Max(nameW, l.Width(nm, l.Normal))
	}
	if nameW/2+l.Px(5) > l.Px(32) || l.Present {
		g.NameSize = l.Small
		nameW = 0
		for _, nm := range cs.Members {
			nameW = math.Max(nameW, l.Width(nm, l.Small))
		}
	}
	g.NodeR = math.Ceil(math.Max(l.Px(22), nameW/2+l.Px(5)))
	for _, role := range roleSamples {
		g.LabelW = math.Max(g.LabelW, l.Width(l.Lang.T(StyleOfRole(role).Label), l.Small))
	}
	g.LabelW = math.Max(g.LabelW, l.Width(l.Lang.F("term %d", 99), l.Small))
	g.LabelW = math.Max(g.LabelW, l.Width(l.Lang.T("no data directory"), l.Small)) // a member lost with its disk (MemberLabels)
	g.LabelW = math.Max(g.LabelW, l.Width(l.Lang.F("voted %s", longestName(cs.Members)), l.Small))
	g.LabelW = math.Ceil(g.LabelW + 2*labelMargin(l))
	// The client box under the labels: room for its name (a member's own
	// client is called "client").
	g.ClientH = l.SmallH() + l.Px(4)
	g.ClientW = l.Width(l.Lang.T("client"), l.Small)
	stacked := false
	for _, c := range cs.Clients {
		if len(c.Endpoints) == 1 {
			g.ClientW = math.Max(g.ClientW, l.Width(c.Name, l.Small))
			stacked = true
		}
	}
	// Room at its right end for the count of its pending requests.
	g.ClientW = math.Ceil(g.ClientW + l.Px(10) + l.SmallH())
	if cs.Hosts && len(ext) > 0 && !stacked {
		// External etcd: the apiservers are in the strip, and a member's
		// host runs the member alone. (With stacked apiservers, a client
		// with several endpoints, etcdctl, joins them in the strip.)
		g.ClientW, g.ClientH = 0, 0
	}
	R := g.NodeR
	arc := l.Px(8) // the election timer's arc around the shape
	g.Core = math.Ceil(2 * (R*1.2 + arc))
	g.Above = math.Ceil(CrownTop(R, l.S)) // the crown
	g.Under = math.Ceil(R + arc + l.Px(2))
	if cs.Hosts {
		g.Edge = l.Px(5)
	}
	inner := r.Inset(pad)
	g.Center = inner.Center()
	if n == 0 {
		return g, true, ""
	}
	angle := func(i int) float64 { return -math.Pi/2 + 2*math.Pi*float64(i)/float64(n) }
	g.Side = make([]LabelSide, n)
	g.Pos = make([]Point, n)
	// Try ellipses of a few shapes, each as large as fits, and keep the
	// largest on which no two members overlap; with labels beside the
	// members at the sides, or under every member.
	best := -1.0
	var bestG Ring
	// Labels: beside the members at the sides (|cos| above the limit),
	// under the others.
	for _, try := range []struct {
		beside float64
		lines  int
	}{{0.45, 3}, {2, 3}, {-0.01, 3}, {0.45, 2}, {2, 2}, {-0.01, 2}} {
		if try.lines == 2 && best >= 0 {
			break // three lines fit: the vote keeps its own
		}
		// With two lines the vote shares the term's line, or is left out
		// when there is no room for it: the role and the term never are.
		g.LabelLines = try.lines
		for i := range n {
			c := math.Cos(angle(i))
			switch {
			case c > try.beside || try.beside < 0 && c > -1e-9:
				g.Side[i] = LabelsRight
			case c < -try.beside:
				g.Side[i] = LabelsLeft
			case math.Sin(angle(i)) < -1e-9:
				g.Side[i] = LabelsAbove
			default:
				g.Side[i] = LabelsBelow
			}
		}
		for _, aspect := range []float64{0.6, 0.8, 1, 1.15, 1.3, 1.45, 1.6, 1.75, 1.9, 2.1, 2.4, 2.8, 3.2} {
			place := func(k float64) (Ring, bool) {
				h := g
				h.Pos = make([]Point, n)
				h.Side = append([]LabelSide(nil), g.Side...)
				h.RY = k
				h.RX = k * aspect
				for i := range n {
					a := angle(i)
					h.Pos[i] = Point{h.RX * math.Cos(a), h.RY * math.Sin(a)}
				}
				// Centre what the members take in the panel.
				box := h.Footprint(0)
				for i := 1; i < n; i++ {
					box = union(box, h.Footprint(i))
				}
				off := inner.Center().Sub(box.Center())
				for i := range h.Pos {
					h.Pos[i] = h.Pos[i].Add(off)
				}
				h.Center = off
				return h, box.W <= inner.W && box.H <= inner.H
			}
			// The largest k that fits, by bisection.
			lo, hi := 0.0, math.Max(inner.W, inner.H)
			if _, ok := place(lo); !ok {
				continue
			}
			for range 30 {
				mid := (lo + hi) / 2
				if _, ok := place(mid); ok {
					lo = mid
				} else {
					hi = mid
				}
			}
			h, _ := place(lo)
			if l.clash(h) {
				continue
			}
			// Prefer the largest ring, the least squashed.
			if size := math.Sqrt(h.RX*h.RY) * math.Min(1, math.Min(h.RX, h.RY)/math.Max(h.RX, h.RY)*2); size > best {
				best, bestG = size, h
			}
		}
	}
	if best < 0 {
		return g, false, "two members overlap on the ring"
	}
	return bestG, true, ""
}

// clash reports whether a ring does not hold together: two members'
// rooms overlap (or, drawn as hosts, come closer than a gap that tells
// the machines apart), or a link passes over a member's labels or client
// box nearer than a message on it reaches.
func (l Layout) clash(g Ring) bool {
	gap := 0.0
	if g.Hosts {
		gap = l.Px(8)
	}
	for i := range g.Pos {
		for j := i + 1; j < len(g.Pos); j++ {
			if g.Footprint(i).Inset(-gap / 2).Overlaps(g.Footprint(j).Inset(-gap / 2)) {
				return true
			}
		}
	}
	reach := LinkReach(l.S)
	for i := range g.Pos {
		for j := i + 1; j < len(g.Pos); j++ {
			a, b := g.Pos[i], g.Pos[j]
			for k := range g.Pos {
				// Every member's labels and client box. (A message
				// may cross the shading of a host it is not bound
				// for, as it crosses its own: the words and boxes on
				// a host are what it must not cover.)
				keep := []Rect{g.Labels(k)}
				if g.ClientH > 0 {
					keep = append(keep, g.ClientSlot(k))
				}
				for _, r := range keep {
					if SegmentNear(a, b, r, reach) {
						return true
					}
				}
			}
		}
	}
	return false
}

// LinkReach is how far from a link's centre line anything drawn on it
// reaches, at scale s: a lane's offset and the largest message glyph with
// its ring (drop and cut marks are smaller).
func LinkReach(s float64) float64 { return laneOffset(s) + 12*s }

// SegmentNear reports whether the segment a–b comes within d of the
// rectangle r.
func SegmentNear(a, b Point, r Rect, d float64) bool {
	r = r.Inset(-d)
	// Clip the segment to the rectangle (Liang–Barsky).
	t0, t1 := 0.0, 1.0
	dx, dy := b.X-a.X, b.Y-a.Y
	for _, e := range [][2]float64{{-dx, a.X - r.X}, {dx, r.Right() - a.X}, {-dy, a.Y - r.Y}, {dy, r.Bottom() - a.Y}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// CrownAt returns where the leader's crown is centred above a member of
// radius R, and how wide it is.
func CrownAt(p Point, R, s float64) (Point, float64) {
	return Point{p.X, p.Y - R - 0.25*R*1.1 - 2*s}, R * 1.1
}

// CrownTop is how far above a member's centre its crown reaches.
func CrownTop(R, s float64) float64 { return R + 0.55*R*1.1 + 2*s + 1 }

// chipW is the width of an endpoint's chip in an external client's box:
// room for the widest of the endpoints' labels (etcd-3 → 3).
func chipW(l Layout, endpoints []string) float64 {
	w := 0.0
	for _, e := range endpoints {
		w = math.Max(w, l.Width(ChipLabel(e), l.Small))
	}
	return math.Ceil(math.Max(w+l.Px(8), l.Px(16)))
}

func longestName(names []string) string {
	best := ""
	for _, n := range names {
		if len(n) > len(best) {
			best = n
		}
	}
	return best
}
