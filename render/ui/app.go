package ui

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// Speeds are the speed factors, virtual time per real time: a logarithmic
// scale from 1/1000× to 100×.
var Speeds = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}

// DefaultSpeed is where the speed starts: 1/10×, so that a 10ms message
// takes a tenth of a second to cross the screen.
const DefaultSpeed = 6

// TPS is the number of Updates per real second. Each Update advances
// virtual time by 1/TPS seconds times the speed: the wall clock is never
// read.
const TPS = 60

// App is the window's state: the session, and what the user is doing with
// the mouse and the keyboard. Update advances it by one tick; Handle feeds
// it one input event. Neither reads the wall clock; Draw only reads it.
type App struct {
	S *Session
	L Layout
	// Lang is the language of the window's words (not of etcd's errors
	// or a console's output, which are etcd's own).
	Lang i18n.Lang
	// Title names what is shown: "sandbox", or the scenario's name and
	// title.
	Title string

	speed    int
	Playing  bool
	Help     bool
	Selected string           // the selected member
	Message  *sim.MessageView // the message whose fields are shown
	Status   string           // the last thing that happened, or an error
	Paused   string           // a scenario's pause caption, while paused

	// Save writes the session as a scenario and returns where; Screenshot
	// asks the window for a PNG. Both are set by the host.
	Save       func(*Session) (string, error)
	Screenshot func() (string, error)

	// Box is the command box; NewConsole, set by the host, makes the
	// console behind it (nil: the box says there is none).
	Box        CommandBox
	NewConsole ConsoleFactory
	console    Console
	consoleW   *sim.World    // the world console acts on
	advance    time.Duration // virtual time the console asked for (wait, tick)

	clock    playClock // virtual time per tick of play, without rounding noise
	hover    Point     // where the pointer is
	hovering bool
	view     viewOptions
	scale    float64 // the scale asked for (--scale)
	menu     *menuState
	drag     *dragState
	scrub    *scrubState
	ticks    int64
	puts     int
}

type menuState struct {
	target string
	client bool
}

type dragState struct {
	from   string
	start  Point
	at     Point
	moved  bool
	shift  bool
	button Hit // what the press landed on
}

type scrubState struct {
	target   sim.Time
	lastSeek int64
	done     bool
}

// NewApp makes an App on a session, laid out for a w×h window.
func NewApp(s *Session, w, h int, scale float64) *App {
	return NewAppFor(s, Screen{W: w, H: h, Scale: scale})
}

// Resize lays the App out again for a new window size.
func (a *App) Resize(w, h int) {
	if float64(w) != a.L.W || float64(h) != a.L.H {
		a.L = Lay(a.screen(w, h))
	}
}

// Speed returns the speed factor.
func (a *App) Speed() float64 { return Speeds[a.speed] }

// SpeedLabel formats the speed factor.
func (a *App) SpeedLabel() string {
	s := Speeds[a.speed]
	if s < 1 {
		return "1/" + strconv.Itoa(int(math.Round(1/s))) + "×"
	}
	return strconv.FormatFloat(s, 'g', -1, 64) + "×"
}

// SetSpeed sets the speed to the nearest step of Speeds.
func (a *App) SetSpeed(f float64) {
	best := 0
	for i, s := range Speeds {
		if math.Abs(math.Log(s/f)) < math.Abs(math.Log(Speeds[best]/f)) {
			best = i
		}
	}
	a.speed = best
}

// Dragging returns the drag in progress between members, if any.
func (a *App) Dragging() (from string, at Point, shift, ok bool) {
	if a.drag == nil || a.drag.from == "" || !a.drag.moved {
		return "", Point{}, false, false
	}
	return a.drag.from, a.drag.at, a.drag.shift, true
}

// Update advances the App by one tick.
func (a *App) Update() {
	a.ticks++
	a.syncLayout()
	if sc := a.scrub; sc != nil && sc.target != a.S.Now() && (sc.done || a.ticks-sc.lastSeek >= 4) {
		// Seeking back replays the log, so a drag seeks a few times a second
		// and once more where it is let go.
		sc.lastSeek = a.ticks
		a.report(a.S.Seek(sc.target))
	}
	if a.scrub != nil && a.scrub.done {
		a.scrub = nil
	}
	defer a.pollConsole()
	if !a.Playing || a.scrub != nil {
		return
	}
	if a.S.World().Violation() != nil {
		a.Playing = false
		return
	}
	paused, err := a.S.AdvanceTo(a.clock.next(a.S.Now(), a.Speed()))
	a.report(err)
	if paused {
		a.Playing = false
		if d := a.S.Driver(); d != nil {
			a.Paused = d.Caption()
		}
	}
}

func (a *App) report(err error) {
	if err != nil {
		a.Status = err.Error()
	}
}

// Handle feeds the App one input event.
func (a *App) Handle(in Input) {
	if a.Box.Open && a.boxInput(in) {
		return
	}
	switch in.Kind {
	case TextInput:
		if len(in.Text) > 0 && isOpenKey(in.Text[:1]) {
			a.OpenBox()
			a.Box.Type(in.Text[1:])
		}
	case KeyPress:
		a.key(in.Key, in.Shift)
	case MouseDown:
		a.mouseDown(in)
	case MouseMove:
		a.mouseMove(in)
	case MouseUp:
		a.mouseUp(in)
	}
}

func (a *App) mouseDown(in Input) {
	f := BuildFrame(a)
	h := HitTest(f, in.At, a.Help)
	a.drag = &dragState{start: in.At, at: in.At, shift: in.Shift, button: h}
	switch h.Kind {
	case HitMember:
		a.drag.from = h.Name
	case HitTimeline:
		a.scrub = &scrubState{target: TimeAtX(f.Track, f.Span, in.At.X), lastSeek: a.ticks - 4}
	}
}

func (a *App) mouseMove(in Input) {
	a.hover, a.hovering = in.At, true
	if a.drag == nil {
		return
	}
	a.drag.at = in.At
	if in.At.Sub(a.drag.start).Len() > a.L.Px(6) {
		a.drag.moved = true
	}
	if a.scrub != nil {
		f := BuildFrame(a)
		a.scrub.target = TimeAtX(f.Track, f.Span, in.At.X)
	}
}

func (a *App) mouseUp(in Input) {
	d := a.drag
	a.drag = nil
	if d == nil {
		return
	}
	if a.scrub != nil {
		a.scrub.done = true
		return
	}
	f := BuildFrame(a)
	if d.from != "" && d.moved {
		h := HitTest(f, in.At, false)
		if h.Kind == HitMember && h.Name != d.from {
			a.do(sim.Command{Kind: sim.CmdCut, From: d.from, To: h.Name, OneWay: d.shift || in.Shift})
		}
		return
	}
	if d.moved && d.button.Kind != HitMenuItem && d.button.Kind != HitButton {
		return
	}
	a.click(d.button)
}

func (a *App) click(h Hit) {
	switch h.Kind {
	case HitHelp:
		a.Help = false
	case HitMenuItem:
		a.menu = nil
		a.act(h.Action, h.Name)
	case HitMenuOther:
	case HitButton:
		a.menu = nil
		a.act(h.Action, a.Selected)
	case HitCut:
		a.menu = nil
		a.do(sim.Command{Kind: sim.CmdRestore, From: h.Cut.From, To: h.Cut.To, OneWay: !h.Cut.Both})
	case HitMessage:
		a.menu = nil
		m := h.Msg
		a.Message = &m
	case HitMember:
		a.Selected = h.Name
		a.menu = &menuState{target: h.Name}
	case HitClient:
		a.menu = &menuState{target: h.Name, client: true}
	default:
		a.menu = nil
		a.Message = nil
	}
}

var keyActions = map[string]Action{
	"space": ActPlayPause, "n": ActStepEvent, "m": ActStepDelivery, "-": ActSlower, "+": ActFaster,
	"h": ActHeal, "z": ActUndo, "s": ActSave, "?": ActHelp, "f12": ActScreenshot,
	"left": ActSeekBack, "right": ActSeekForward,
}

func (a *App) key(k string, shift bool) {
	if a.Help && k != "f12" {
		a.Help = false
		if k == "?" || k == "escape" {
			return
		}
	}
	if isOpenKey(k) {
		a.OpenBox()
		return
	}
	if k == "escape" {
		if a.menu != nil {
			a.menu = nil
		} else {
			a.Selected, a.Message = "", nil
		}
		return
	}
	if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
		names := a.S.World().MemberNames()
		if i := int(k[0] - '1'); i < len(names) {
			a.Selected = names[i]
		}
		return
	}
	switch {
	case shift && k == "p": // P: the projector layout
		a.act(ActPresent, "")
		return
	case shift && k == "l": // L: the legend
		a.act(ActLegend, "")
		return
	}
	if act, ok := keyActions[k]; ok {
		a.act(act, a.Selected)
		return
	}
	name := k
	if shift {
		name = "shift+" + k
	}
	for _, ma := range MemberActions {
		if ma.Key == name {
			target := a.Selected
			if a.menu != nil {
				target = a.menu.target
			}
			a.menu = nil
			a.act(ma.Action, target)
			return
		}
	}
}

// act carries out an action on a target (a member or a client name; "" if
// none is selected).
func (a *App) act(act Action, target string) {
	switch act {
	case ActPlayPause:
		if a.Paused != "" {
			if d := a.S.Driver(); d != nil {
				d.Resume()
			}
			a.Paused = ""
			a.Playing = true
			return
		}
		a.Playing = !a.Playing
		return
	case ActStepEvent:
		a.Playing = false
		a.report(a.S.StepEvent())
		return
	case ActStepDelivery:
		a.Playing = false
		a.report(a.S.StepDelivery(100_000))
		return
	case ActSlower:
		a.speed = max(0, a.speed-1)
		return
	case ActFaster:
		a.speed = min(len(Speeds)-1, a.speed+1)
		return
	case ActSeekBack:
		a.report(a.S.Seek(a.S.Now() - sim.Time(100*time.Millisecond)))
		return
	case ActSeekForward:
		a.report(a.S.Seek(a.S.Now() + sim.Time(100*time.Millisecond)))
		return
	case ActHeal:
		a.do(sim.Command{Kind: sim.CmdHeal})
		return
	case ActUndo:
		if err := a.S.Undo(); err != nil {
			a.Status = err.Error()
		} else {
			a.Status = a.Lang.F("undone; %d more in the undo list", a.S.UndoDepth())
		}
		return
	case ActSave:
		if a.Save == nil {
			a.Status = a.Lang.T("saving is not available")
			return
		}
		where, err := a.Save(a.S)
		if err != nil {
			a.Status = a.Lang.T("save failed: ") + err.Error()
		} else {
			a.Status = a.Lang.T("saved the session to ") + where
		}
		return
	case ActScreenshot:
		if a.Screenshot != nil {
			where, err := a.Screenshot()
			if err != nil {
				a.Status = a.Lang.T("screenshot failed: ") + err.Error()
			} else {
				a.Status = a.Lang.T("screenshot saved to ") + where
			}
		}
		return
	case ActHelp:
		a.Help = !a.Help
		return
	case ActLegend:
		a.ToggleLegend()
		return
	case ActPresent:
		a.SetPresent(!a.view.present)
		return
	case ActAddMember, ActAddLearner:
		a.do(sim.Command{Kind: sim.CmdAddMember, Node: a.newMemberName(), Learner: act == ActAddLearner, Start: true})
		return
	}
	if target == "" {
		a.Status = a.Lang.T("select a member first: click it, or press 1…9")
		return
	}
	via := target
	member := target
	if c := a.clientConfig(target); c != nil {
		member = c.Endpoints[0]
	}
	switch act {
	case ActCrash:
		a.do(sim.Command{Kind: sim.CmdCrash, Node: member})
	case ActRestart:
		a.do(sim.Command{Kind: sim.CmdRestart, Node: member})
	case ActStall:
		a.do(sim.Command{Kind: sim.CmdStall, Node: member, For: 2 * time.Second})
	case ActCampaign:
		a.do(sim.Command{Kind: sim.CmdCampaign, Node: member})
	case ActTransfer:
		a.do(sim.Command{Kind: sim.CmdTransferLeader, Node: member})
	case ActIsolate:
		a.do(sim.Command{Kind: sim.CmdIsolate, Node: member})
	case ActRemove:
		a.do(sim.Command{Kind: sim.CmdRemoveMember, Node: member})
	case ActPromote:
		a.do(sim.Command{Kind: sim.CmdPromote, Node: member})
	case ActSnapshot:
		a.do(sim.Command{Kind: sim.CmdSnapshot, Node: member})
	case ActPut:
		a.puts++
		n := strconv.Itoa(a.puts)
		a.do(sim.Command{Kind: sim.CmdPut, Via: via, Key: "/k" + n, Value: "v" + n})
	case ActGetLinear, ActGetSerial:
		a.do(sim.Command{Kind: sim.CmdGet, Via: via, Key: a.lastKey(), Serializable: act == ActGetSerial})
	}
}

func (a *App) clientConfig(name string) *sim.ClientConfig {
	for _, c := range a.S.World().Clients() {
		if c.Name == name && len(c.Endpoints) > 0 {
			return &c
		}
	}
	return nil
}

// lastKey is the key of the latest put, so that a get reads what was
// just written.
func (a *App) lastKey() string {
	ops := a.S.World().View().Ops
	for i := len(ops) - 1; i >= 0; i-- {
		if ops[i].Kind == sim.OpPut {
			return ops[i].Key
		}
	}
	return "/k1"
}

func (a *App) newMemberName() string {
	names := a.S.World().MemberNames()
	for n := len(names) + 1; ; n++ {
		name := "etcd-" + strconv.Itoa(n)
		if !slices.Contains(names, name) && a.clientConfig(name) == nil {
			return name
		}
	}
}

// do applies a command through the session and says what became of it.
func (a *App) do(c sim.Command) {
	forked := a.S.Now() < a.S.Head()
	if _, err := a.S.Do(c); err != nil {
		a.Status = a.Lang.T(CommandWord(c.Kind)) + ": " + err.Error()
		return
	}
	a.Status = a.Lang.F("%s at %s", a.describeCommand(c), a.S.Now())
	if forked {
		a.Status += a.Lang.T(" — the future was forked off (z brings it back)")
	}
}

func (a *App) describeCommand(c sim.Command) string {
	l := a.Lang
	switch c.Kind {
	case sim.CmdCut, sim.CmdRestore:
		dir := " ↔ "
		if c.OneWay {
			dir = " → "
		}
		return l.T(CommandWord(c.Kind)) + " " + c.From + dir + c.To
	case sim.CmdPut:
		return l.F("put %s=%s via %s", c.Key, c.Value, c.Via)
	case sim.CmdGet:
		if c.Serializable {
			return l.F("get %s (serializable) via %s", c.Key, c.Via)
		}
		return l.F("get %s (linearizable) via %s", c.Key, c.Via)
	case sim.CmdHeal:
		return l.T("heal all")
	}
	return l.T(CommandWord(c.Kind)) + " " + c.Node
}

// buildMenu places the open menu beside its target, as wide as its
// longest entry and its key.
func (a *App) buildMenu(f *Frame) *MenuDraw {
	m := a.menu
	l := f.L
	var anchor Point
	md := &MenuDraw{Target: m.target, Client: m.client}
	info, isMember := a.S.World().Info(m.target)
	if i, ok := f.Names[m.target]; ok {
		anchor = f.Ring.Pos[i].Add(Point{f.Ring.NodeR + l.Px(8), -f.Ring.NodeR})
	} else {
		for _, c := range f.Clients {
			if c.Name == m.target {
				anchor = Point{c.R.Right() + l.Px(6), c.R.Y}
			}
		}
	}
	if !isMember {
		if c := a.clientConfig(m.target); c != nil {
			info, isMember = a.S.World().Info(c.Endpoints[0])
		}
	}
	itemH := l.SmallH() + l.Px(5)
	w := l.Width(m.target+" · "+a.Lang.T("pre-candidate"), l.Normal)
	for _, ma := range MemberActions {
		if m.client && ma.Action != ActPut && ma.Action != ActGetLinear && ma.Action != ActGetSerial {
			continue
		}
		md.Items = append(md.Items, MenuItem{Action: ma.Action, Label: ma.Label, Key: ma.Key,
			Enabled: isMember && enabled(ma.Action, info)})
		w = math.Max(w, l.Width(a.Lang.T(ma.Label), l.Small)+l.Width(ma.Key, l.Small)+l.Px(24))
	}
	w += l.Px(16)
	h := itemH*float64(len(md.Items)) + l.LineH() + l.Px(10)
	x := math.Max(0, math.Min(anchor.X, l.W-w-l.Px(4)))
	y := math.Max(l.Toolbar.Bottom()+l.Px(4), math.Min(anchor.Y, l.Timeline.Y-h-l.Px(4)))
	md.R = Rect{x, y, w, h}
	for i := range md.Items {
		md.Items[i].R = Rect{x + l.Px(4), y + l.LineH() + l.Px(6) + float64(i)*itemH, w - l.Px(8), itemH}
	}
	return md
}

// enabled reports whether a menu action makes sense for a member now. A
// disabled entry is drawn greyed and cannot be clicked.
func enabled(act Action, in sim.MemberInfo) bool {
	switch act {
	case ActCrash, ActStall, ActCampaign, ActSnapshot:
		return in.Up && !in.Removed && !(act == ActStall && in.Stalled)
	case ActRestart:
		return !in.Up && !in.Removed
	case ActPromote:
		return in.Learner && !in.Removed
	case ActTransfer, ActIsolate, ActRemove:
		return !in.Removed
	}
	return true
}
