package ui

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// Speeds are the fixed rates, virtual time per real time: a logarithmic
// scale from 1/1000× to 100×. (By default the rate adapts: see
// present.Pacer.)
var Speeds = []float64{0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100}

// DefaultSpeed is the fixed rate the window starts with when it is put in
// fixed-rate mode: 1/10×, so that a 10ms message takes a tenth of a
// second to cross the screen.
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

	speed    int // the index in Speeds of the fixed rate
	Playing  bool
	Help     bool
	Selected string           // the selected member
	Message  *sim.MessageView // the message whose fields are shown
	Why      *WhyCard         // the message's "why" card, shown with it (whycard.go)
	Status   string           // the last thing that happened, or an error
	// Pace decides how fast virtual time runs, frame by frame.
	Pace *present.Pacer
	// Lesson is the presenter, when a lesson is on screen (nil in the
	// sandbox): it owns the lesson, and the App forwards it every key and
	// every frame.
	Lesson *present.Presenter
	// Picker, when set, is the lesson picker, over everything.
	Picker *Picker

	// Save writes the session as a scenario and returns where; Screenshot
	// asks the window for a PNG. Both are set by the host.
	Save       func(*Session) (string, error)
	Screenshot func() (string, error)
	// CopyLink, set by the host, makes a link to the moment on screen
	// (see link.go) and returns what became of it, for the status line.
	CopyLink func(*Session) (string, error)

	// External, when set by the host, brings in commands from outside the
	// window (raftsim serve's wire): Update hands it the session once a
	// frame, after time has moved, to apply what arrived and answer what
	// ended. wireKey names the outside clients the layout was made for.
	External func(*Session)
	wireKey  string

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

	// frames holds the virtual time of the latest frames, newest last, on
	// the world they showed: how much virtual time a second of wall time
	// has covered (drop marks stay on screen for that long).
	frames      []sim.Time
	framesWorld *sim.World

	// lessonWhy is the why: of the lesson's step on screen whose card was
	// opened, lessonCard that card (whycard_lesson.go).
	lessonWhy  *scenarios.WhyOpened
	lessonCard *WhyCard
}

type menuState struct {
	target  string
	client  bool
	toolbar bool // the toolbar's menu: the buttons that gave way
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

// NewApp makes an App on a session, laid out for a w×h window. Time runs
// at the adaptive pace; SetSpeed fixes the rate.
func NewApp(s *Session, w, h int, scale float64) *App {
	return NewAppFor(s, Screen{W: w, H: h, Scale: scale})
}

// Resize lays the App out again for a new window size.
func (a *App) Resize(w, h int) {
	if float64(w) != a.L.W || float64(h) != a.L.H {
		a.L = Lay(a.screen(w, h))
	}
}

// Speed returns the rate of the latest frame: virtual time per real time.
func (a *App) Speed() float64 { return a.Pace.LastRate() }

// SpeedLabel formats the current rate, as the header shows it.
func (a *App) SpeedLabel() string { return present.RateLabel(a.Speed()) }

// SetSpeed fixes the rate at the nearest step of Speeds (fixed-rate mode).
func (a *App) SetSpeed(f float64) {
	best := 0
	for i, s := range Speeds {
		if math.Abs(math.Log(s/f)) < math.Abs(math.Log(Speeds[best]/f)) {
			best = i
		}
	}
	a.speed = best
	a.Pace.Fixed, a.Pace.FixedRate = true, Speeds[best]
	a.Pace.Rate()
}

// WallSecond returns the virtual time one second of wall time has covered
// up to now, on the world on screen (less if it has not been on screen
// that long).
func (a *App) WallSecond() time.Duration {
	if len(a.frames) == 0 || a.framesWorld != a.S.World() {
		return 0
	}
	return time.Duration(a.S.Now() - a.frames[0])
}

// noteFrame remembers the virtual time of this frame.
func (a *App) noteFrame() {
	if a.framesWorld != a.S.World() {
		a.frames, a.framesWorld = a.frames[:0], a.S.World()
	}
	if len(a.frames) >= TPS {
		a.frames = append(a.frames[:0], a.frames[1:]...)
	}
	a.frames = append(a.frames, a.S.Now())
}

// Dragging returns the drag in progress between members, if any.
func (a *App) Dragging() (from string, at Point, shift, ok bool) {
	if a.drag == nil || a.drag.from == "" || !a.drag.moved {
		return "", Point{}, false, false
	}
	return a.drag.from, a.drag.at, a.drag.shift, true
}

// Update advances the App by one frame (TPS a second).
func (a *App) Update() {
	a.ticks++
	a.syncLayout()
	defer a.noteFrame()
	if sc := a.scrub; sc != nil && sc.target != a.S.Now() && (sc.done || a.ticks-sc.lastSeek >= 4) {
		// Seeking back replays the log, so a drag seeks a few times a second
		// and once more where it is let go.
		sc.lastSeek = a.ticks
		a.seek(sc.target)
	}
	if a.scrub != nil && a.scrub.done {
		a.scrub = nil
	}
	defer a.pollConsole()
	if a.External != nil {
		defer a.External(a.S)
	}
	if a.Lesson != nil {
		a.Lesson.Frame()
	}
	a.syncLessonWhy()
	if !a.TimeRuns() {
		return
	}
	a.play()
}

// TimeRuns reports whether virtual time moves in this frame: playing, and
// not held by the help, the lesson picker, a drag on the timeline, a
// safety violation, or the presenter (a step waiting to be shown, a
// pause, the end of the lesson).
func (a *App) TimeRuns() bool {
	if !a.Playing || a.Help || a.Picker != nil || a.scrub != nil || a.S.World().Violation() != nil {
		return false
	}
	return !a.holdsTime()
}

// play moves time on by one frame at the pace's rate. It goes from one
// instant at which anything happens to the next, and ends the frame early
// where a narrative step runs, and at the adaptive pace also where a
// message (not a heartbeat) is sent or dropped: the next frame's rate is
// then set by that message, so that it is seen from its start.
func (a *App) play() {
	a.Pace.Observe(a.S.World())
	target := a.clock.next(a.S.Now(), a.Pace.Rate())
	for range 100_000 {
		next := target
		if t, ok := a.S.NextAt(); ok && t < next {
			next = t
		}
		stopped, err := a.advanceTo(next)
		fresh := a.Pace.Observe(a.S.World()) && !a.Pace.Fixed
		if err != nil || stopped || fresh || a.S.Now() >= target {
			break
		}
		if a.holdsTime() {
			break
		}
	}
	a.Pace.Played()
}

// advanceTo moves the session to t, or to the next narrative step of a
// lesson before it, which the presenter is then told of. It reports
// whether a narrative step stopped it.
func (a *App) advanceTo(t sim.Time) (bool, error) {
	paused, err := a.S.AdvanceTo(t)
	a.report(err)
	if err != nil {
		a.Playing = false
	}
	if paused && a.Lesson != nil {
		a.Lesson.Stopped()
	}
	return paused, err
}

// seek shows the cluster at t: in a lesson, the lesson made again to t.
func (a *App) seek(t sim.Time) { a.report(a.Seek(t)) }

// Seek shows the cluster at t, as dragging the timeline there does. In a
// lesson the lesson is made again up to t, through every narrative step
// before it, as if a presenter had played it.
func (a *App) Seek(t sim.Time) error {
	if a.inLesson() {
		return a.Lesson.Seek(t)
	}
	return a.S.Seek(t)
}

func (a *App) report(err error) {
	if err != nil {
		a.Status = err.Error()
	}
}

// Handle feeds the App one input event.
func (a *App) Handle(in Input) {
	if a.Lesson != nil {
		defer a.Lesson.Sync()
	}
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
	if a.Picker != nil {
		// The picker takes every click: a lesson's row opens it.
		rows, _, _ := a.Picker.Rows(a.L)
		for _, r := range rows {
			if r.R.Contains(in.At) {
				a.Choose(r.Index)
				return
			}
		}
		return
	}
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
		a.OpenWhy(m)
	case HitMember:
		a.Selected = h.Name
		a.menu = &menuState{target: h.Name}
	case HitLabel:
		a.menu = nil
		a.OpenWhyRole(h.Name)
	case HitLogCell:
		a.menu = nil
		a.OpenWhyCell(h.Name, h.Cell.Index, h.Cell.Committed)
	case HitClient:
		a.menu = &menuState{target: h.Name, client: true}
	default:
		a.menu = nil
		a.Message, a.Why = nil, nil
	}
}

var keyActions = map[string]Action{
	"space": ActPlayPause, "n": ActStepEvent, "m": ActStepDelivery, "-": ActSlower, "+": ActFaster,
	"h": ActHeal, "z": ActUndo, "s": ActSave, "u": ActCopyLink, "?": ActHelp, "f12": ActScreenshot,
	"left": ActSeekBack, "right": ActSeekForward,
	"b": ActPlayPause, "f": ActFixedRate, "pagedown": ActPlayPause,
}

func (a *App) key(k string, shift bool) {
	if a.Help && k != "f12" {
		a.Help = false
		if k == "?" || k == "escape" {
			return
		}
	}
	if a.Picker != nil {
		a.pickerKey(k)
		return
	}
	if a.Lesson != nil && a.Lesson.Key(k) {
		// The presenter's keys: the clicker's, the chapters, Tab, Enter.
		return
	}
	if isOpenKey(k) {
		a.OpenBox()
		return
	}
	if k == "escape" {
		// One Escape closes what is open and deselects: a member left
		// selected under a closed menu would take the next key (x crashes
		// it) though nothing on screen says it is still the target.
		a.menu, a.Selected, a.Message, a.Why = nil, "", nil, nil
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
	if a.actUntargeted(act) {
		return
	}
	if target == "" {
		if a.Lesson != nil {
			// In a lesson the digits are the chapters.
			a.Status = a.Lang.T("select a member first: click it")
		} else {
			a.Status = a.Lang.T("select a member first: click it, or press 1…9")
		}
		return
	}
	a.actOn(act, target)
}

// actUntargeted carries out an action that needs no target, and reports
// whether act is one.
func (a *App) actUntargeted(act Action) bool {
	switch act {
	case ActPlayPause:
		a.togglePlaying()
	case ActStepEvent:
		a.stepEvent(false)
	case ActStepDelivery:
		a.stepEvent(true)
	case ActSlower, ActFaster:
		a.changePace(act == ActFaster)
	case ActFixedRate:
		a.toggleFixedRate()
	case ActSeekBack:
		a.seek(a.S.Now() - sim.Time(100*time.Millisecond))
	case ActSeekForward:
		a.seekForward()
	case ActHeal:
		a.do(sim.Command{Kind: sim.CmdHeal})
	case ActUndo:
		a.undoLast()
	case ActSave:
		a.saveSession()
	case ActCopyLink:
		a.copyLink()
	case ActScreenshot:
		a.takeScreenshot()
	case ActHelp:
		a.Help = !a.Help
	case ActLegend:
		a.ToggleLegend()
	case ActPresent:
		a.SetPresent(!a.view.present)
	case ActMenu:
		a.menu = &menuState{toolbar: true}
	case ActAddMember, ActAddLearner:
		a.do(sim.Command{Kind: sim.CmdAddMember, Node: a.newMemberName(), Learner: act == ActAddLearner, Start: true})
	default:
		return false
	}
	return true
}

// actOn carries out an action on target: a member's on the member (a
// client's first endpoint, for a client), a client operation's via
// target.
func (a *App) actOn(act Action, target string) {
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
		a.do(sim.Command{Kind: sim.CmdPut, Via: via, Req: server.Put("/k"+n, "v"+n)})
	case ActGetLinear, ActGetSerial:
		a.do(sim.Command{Kind: sim.CmdGet, Via: via, Req: server.Get(a.lastKey(), act == ActGetSerial)})
	}
}

// togglePlaying plays or pauses.
func (a *App) togglePlaying() {
	a.Playing = !a.Playing
	if a.Lesson != nil {
		// Playing on after the end: the cluster runs on.
		a.Lesson.SetAfterEnd(a.Playing)
	}
}

// toggleFixedRate turns the fixed rate on, at the speed chosen, or off.
func (a *App) toggleFixedRate() {
	a.Pace.Fixed = !a.Pace.Fixed
	if a.Pace.Fixed {
		a.Pace.FixedRate = Speeds[a.speed]
	}
	a.Pace.Rate()
}

// seekForward moves 100ms on.
func (a *App) seekForward() {
	if a.inLesson() {
		// In a lesson → plays on, step by step: it never runs past
		// a step the class has not seen.
		a.forward(sim.Time(100 * time.Millisecond))
	} else {
		a.seek(a.S.Now() + sim.Time(100*time.Millisecond))
	}
}

// undoLast undoes the last command, and says how many more can be.
func (a *App) undoLast() {
	if err := a.S.Undo(); err != nil {
		a.Status = err.Error()
	} else {
		a.Status = a.Lang.F("undone; %d more in the undo list", a.S.UndoDepth())
	}
}

// saveSession saves the session, and says where.
func (a *App) saveSession() {
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
}

// takeScreenshot saves a screenshot, and says where; without a way to take
// one it does nothing.
func (a *App) takeScreenshot() {
	if a.Screenshot == nil {
		return
	}
	where, err := a.Screenshot()
	if err != nil {
		a.Status = a.Lang.T("screenshot failed: ") + err.Error()
	} else {
		a.Status = a.Lang.T("screenshot saved to ") + where
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
			return ops[i].Key()
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
// In a lesson, the teacher takes over first.
func (a *App) do(c sim.Command) {
	a.takeOver()
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
		return l.F("put %s=%s via %s", c.Req.Put.Key, c.Req.Put.Value, c.Via)
	case sim.CmdGet:
		if c.Req.Range.Serializable {
			return l.F("get %s (serializable) via %s", c.Req.Range.Key, c.Via)
		}
		return l.F("get %s (linearizable) via %s", c.Req.Range.Key, c.Via)
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
	if m.toolbar {
		return a.buildToolbarMenu(f)
	}
	var anchor Point
	md := &MenuDraw{Target: m.target, Client: m.client, Title: m.target}
	info, isMember := a.S.World().Info(m.target)
	if isMember {
		md.Title += " · " + a.Lang.T(StyleOfRole(info.Role).Label)
	} else if m.client {
		md.Title += " · " + a.Lang.T("client")
	}
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

// buildToolbarMenu places the toolbar's menu under its button: the
// buttons that gave way to the title and the clock, with their keys.
func (a *App) buildToolbarMenu(f *Frame) *MenuDraw {
	l := f.L
	md := &MenuDraw{Title: a.Lang.T(menuButton.Label)}
	var anchor Rect
	for _, b := range l.Buttons {
		if b.Action == ActMenu {
			anchor = b.Rect
		}
	}
	itemH := l.SmallH() + l.Px(5)
	w := l.Width(md.Title, l.Normal)
	for _, b := range l.MenuButtons {
		md.Items = append(md.Items, MenuItem{Action: b.Action, Label: b.Label, Key: b.Key, Enabled: true})
		w = math.Max(w, l.Width(a.Lang.T(b.Label), l.Small)+l.Width(b.Key, l.Small)+l.Px(24))
	}
	w += l.Px(16)
	h := itemH*float64(len(md.Items)) + l.LineH() + l.Px(10)
	x := math.Max(0, math.Min(anchor.Right()-w, l.W-w-l.Px(4)))
	y := l.Toolbar.Bottom() + l.Px(2)
	md.R = Rect{x, y, w, h}
	for i := range md.Items {
		md.Items[i].R = Rect{x + l.Px(4), y + l.LineH() + l.Px(6) + float64(i)*itemH, w - l.Px(8), itemH}
	}
	return md
}
