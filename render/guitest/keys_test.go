package guitest

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// The presenter's keys as a clicker sends them: real key events, made by
// the X server's XTest extension, read by the window through ebiten's
// input path as a keyboard's are. The window says what it read and what it
// shows (--report); nothing else is asked of it.

// xkeys presses keys on the X display the tests run on.
type xkeys struct {
	c    *xgb.Conn
	root xproto.Window
	// codes maps a keysym to a keycode that makes it.
	codes map[xproto.Keysym]xproto.Keycode
}

// Keysyms of the keys the presenter test presses (X11 keysymdef.h).
const (
	ksPageDown xproto.Keysym = 0xff56 // XK_Next
	ksPageUp   xproto.Keysym = 0xff55 // XK_Prior
	ksTab      xproto.Keysym = 0xff09
	ksReturn   xproto.Keysym = 0xff0d
)

func openX(t *testing.T) *xkeys {
	t.Helper()
	c, err := xgb.NewConn()
	if err != nil {
		t.Fatalf("connecting to the X display: %v", err)
	}
	t.Cleanup(c.Close)
	if err := xtest.Init(c); err != nil {
		t.Fatalf("the X display has no XTest extension: %v", err)
	}
	setup := xproto.Setup(c)
	x := &xkeys{c: c, root: setup.DefaultScreen(c).Root, codes: map[xproto.Keysym]xproto.Keycode{}}
	first, last := setup.MinKeycode, setup.MaxKeycode
	m, err := xproto.GetKeyboardMapping(c, first, byte(last-first+1)).Reply()
	if err != nil {
		t.Fatal(err)
	}
	per := int(m.KeysymsPerKeycode)
	for i := 0; i*per < len(m.Keysyms); i++ {
		// The first (unshifted) keysym of each keycode.
		if ks := m.Keysyms[i*per]; ks != 0 {
			if _, ok := x.codes[ks]; !ok {
				x.codes[ks] = first + xproto.Keycode(i)
			}
		}
	}
	return x
}

// window returns the top-level window whose name contains name, once it
// exists.
func (x *xkeys) window(t *testing.T, name string) xproto.Window {
	t.Helper()
	netName, err := xproto.InternAtom(x.c, false, uint16(len("_NET_WM_NAME")), "_NET_WM_NAME").Reply()
	if err != nil {
		t.Fatal(err)
	}
	for range 600 {
		tree, err := xproto.QueryTree(x.c, x.root).Reply()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tree.Children {
			for _, atom := range []xproto.Atom{netName.Atom, xproto.AtomWmName} {
				p, err := xproto.GetProperty(x.c, false, w, atom, xproto.GetPropertyTypeAny, 0, 256).Reply()
				if err == nil && strings.Contains(string(p.Value), name) {
					return w
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no window named %q on the display", name)
	return 0
}

// key presses (down) or releases (up) a key.
func (x *xkeys) key(t *testing.T, w xproto.Window, ks xproto.Keysym, down bool) {
	t.Helper()
	code, ok := x.codes[ks]
	if !ok {
		t.Fatalf("no keycode makes keysym %#x", ks)
	}
	typ := byte(xproto.KeyRelease)
	if down {
		typ = xproto.KeyPress
		// The window may have lost the focus to nothing: give it back.
		xproto.SetInputFocus(x.c, xproto.InputFocusPointerRoot, w, xproto.TimeCurrentTime)
	}
	if err := xtest.FakeInputChecked(x.c, typ, byte(code), 0, x.root, 0, 0, 0).Check(); err != nil {
		t.Fatal(err)
	}
	x.c.Sync()
}

// shown is a step the caption area shows: its number and kind (say,
// pause, chapter, end, taken-over).
type shown struct {
	step int
	kind string
}

func (s shown) String() string { return fmt.Sprintf("step %d (%s)", s.step, s.kind) }

// reported is a line of the window's --report: a key it read, with the
// step shown before and after handling it, or a change of the step as
// time played (key "").
type reported struct {
	key           string
	before, after shown
}

var (
	keyLine  = regexp.MustCompile(`^key (\S+) (\d+) (\S+) -> (\d+) (\S+)$`)
	playLine = regexp.MustCompile(`^play (\d+) (\S+)$`)
)

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// ups are the keys the window saw let go ("PageDown").
var ups = make(chan string, 100)

// reports runs raftsim-gui with --report and returns its lines, parsed
// (the keys let go go to ups).
func reports(t *testing.T, args ...string) <-chan reported {
	t.Helper()
	cmd := exec.Command(filepath.Join(bins(t), "raftsim-gui"), append([]string{"--report"}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ch := make(chan reported, 100)
	go func() {
		defer close(ch)
		defer close(ups)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := keyLine.FindStringSubmatch(sc.Text()); m != nil {
				ch <- reported{key: m[1], before: shown{atoi(m[2]), m[3]}, after: shown{atoi(m[4]), m[5]}}
			} else if strings.HasPrefix(sc.Text(), "up ") {
				ups <- strings.TrimPrefix(sc.Text(), "up ")
			} else if m := playLine.FindStringSubmatch(sc.Text()); m != nil {
				ch <- reported{after: shown{atoi(m[1]), m[2]}}
			}
		}
	}()
	return ch
}

// TestPresenterKeys drives a lesson in the real window with real key
// events, as a clicker and a keyboard do, and checks that each press was
// read once and moved the lesson by exactly one step (PageDown: the next,
// at once or, at a question, once its answer is played up to; PageUp: the
// one before), in every state a teacher meets: from the start, at a
// question, after a chapter key, after Tab (the lesson so far), after
// taking over the cluster and Enter, after b. The lesson also moves on by
// itself as time plays (a step whose reading time is over makes way for
// the next): the window says which changes a key made. (The test of the
// App alone, TestPresenterKeysInTheApp, checks the same states faster.)
func TestPresenterKeys(t *testing.T) {
	// At a fixed rate of 2×, not the adaptive slow motion: a question's
	// answer (an election, 2s later) is played up to in a second or two
	// of frames, not a minute, which on a loaded machine is many.
	ch := reports(t, "play", "split-brain", "--present", "--size", "1280x800", "--speed", "2")
	x := openX(t)
	w := x.window(t, "raftsim")
	var now shown
	// nowAt is when now was first shown: a step's reading time runs from
	// there, not from a later key that left it as it was.
	var nowAt time.Time
	// next waits for the next line of the report.
	next := func(within time.Duration) (reported, bool) {
		select {
		case r, ok := <-ch:
			if !ok {
				t.Fatal("the window closed")
			}
			if r.key == "" {
				if r.after != now {
					nowAt = time.Now()
				}
				now = r.after
			}
			return r, true
		case <-time.After(within):
			return reported{}, false
		}
	}
	// The lesson opens at its first step.
	for now.step == 0 {
		if _, ok := next(120 * time.Second); !ok {
			t.Fatal("the lesson never showed its first step")
		}
	}
	// split-brain: 1 say, 2 chapter "The partition", 3 say, 4 say, 5 the
	// question, 6 its answer (3.1s, after an election), 7 chapter
	// "Healing", 8 say.
	const last = 8
	// do presses a key, checks that the window read it once, and returns
	// the step shown before it and the one it led to: the step it showed
	// at once or, if it showed none, the next one time played to (within
	// settle; 0: none is waited for).
	do := func(what string, ks xproto.Keysym, key string, settle time.Duration) (before, after shown) {
		t.Helper()
		// The key is held until the window has read it, as a finger
		// holds it for a frame or more: a press and release between two
		// of the window's frames (on a loaded machine, they are slow) is
		// not seen by ebiten, which looks at the keys once a frame.
		x.key(t, w, ks, true)
		var r reported
		for r.key == "" {
			var ok bool
			if r, ok = next(2 * time.Minute); !ok {
				t.Fatalf("%s at %v: the window read no key", what, now)
			}
		}
		x.key(t, w, ks, false)
		// Held until the window has seen it let go, so that the next
		// press is a press.
		select {
		case _, ok := <-ups:
			if !ok {
				t.Fatal("the window closed")
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s at %v: the window never saw the key let go", what, r.before)
		}
		if r.key != key {
			t.Fatalf("%s at %v: the window read the key %s, want %s", what, r.before, r.key, key)
		}
		if r.after != r.before {
			nowAt = time.Now()
		}
		before, now = r.before, r.after
		if r.after == r.before && settle > 0 {
			if _, ok := next(settle); !ok {
				t.Fatalf("%s at %v: nothing changed in %v", what, before, settle)
			}
		}
		after = now
		// One press, one key read: no second one (a key held, or read
		// twice) follows. And the step it showed stays for its reading
		// time, a second at least, however the machine is loaded (the
		// reading time is counted in frames): a step shown and at once
		// replaced is a press that moved the lesson two steps, or none.
		// A key that left the step as it was (Tab, b) counts from when the
		// step was shown: its reading time may run out just after the key
		// (CI, at a load of 12, saw the chapter make way 371ms after Tab).
		shownAt := nowAt
		deadline := time.After(1500 * time.Millisecond)
		for {
			select {
			case r, ok := <-ch:
				if !ok {
					t.Fatal("the window closed")
				}
				if r.key != "" {
					t.Fatalf("%s at %v: one press was read twice (%s, then %s)", what, before, key, r.key)
				}
				if time.Since(shownAt) < time.Second && after.kind != "taken-over" {
					t.Fatalf("%s at %v: %v was shown, then %v in %v, under a second", what, before, after, r.after, time.Since(shownAt).Round(time.Millisecond))
				}
				now = r.after
				continue
			case <-deadline:
			}
			break
		}
		return before, after
	}
	// pageDown presses PageDown and checks that it showed the next step
	// (the end after the last).
	pageDown := func(what string) {
		t.Helper()
		before, after := do(what, ksPageDown, "pagedown", 5*time.Minute)
		want := shown{before.step + 1, ""}
		if before.step == last {
			want = shown{last, "end"}
		}
		if after.step != want.step || want.kind != "" && after.kind != want.kind {
			t.Fatalf("%s at %v: %v, want step %d %s", what, before, after, want.step, want.kind)
		}
	}
	pageUp := func(what string) {
		t.Helper()
		before, after := do(what, ksPageUp, "pageup", 0)
		if after.step != before.step-1 {
			t.Fatalf("%s at %v: %v, want step %d", what, before, after, before.step-1)
		}
	}
	// keep presses a key that leaves the step as it is.
	keep := func(what string, ks xproto.Keysym, key string) {
		t.Helper()
		if before, after := do(what, ks, key, 0); after.step != before.step {
			t.Fatalf("%s at %v: %v, want the same step", what, before, after)
		}
	}
	for i := 0; now.kind != "pause"; i++ {
		if i == 5 {
			t.Fatalf("PageDown five times from the start: %v, not the question", now)
		}
		pageDown("PageDown")
	}
	pageDown("PageDown at the question")
	pageUp("PageUp after the question's answer")
	pageUp("PageUp at the question")
	pageDown("PageDown to the question")
	if _, after := do("the chapter key 1", '1', "1", 0); after != (shown{2, "chapter"}) {
		t.Fatalf("the chapter key 1: %v, want step 2 (chapter)", after)
	}
	pageUp("PageUp after a chapter key")
	pageDown("PageDown after PageUp")
	keep("Tab", ksTab, "tab")
	pageDown("PageDown after Tab")
	pageUp("PageUp after PageDown")
	if _, after := do("h (heal all: taking over)", 'h', "h", 0); after.kind != "taken-over" {
		t.Fatalf("h: %v, want the cluster taken over", after)
	}
	if before, after := do("Enter after taking over", ksReturn, "enter", 0); after.kind == "taken-over" || after.step != before.step {
		t.Fatalf("Enter after taking over at %v: %v, want the lesson back at the same step", before, after)
	}
	pageDown("PageDown after Enter")
	pageUp("PageUp after PageDown")
	keep("b", 'b', "b")
	pageDown("PageDown after b")
	if _, after := do("the chapter key 2", '2', "2", 0); after != (shown{7, "chapter"}) {
		t.Fatalf("the chapter key 2: %v, want step 7 (chapter)", after)
	}
	pageUp("PageUp after a chapter key")
	for now.kind != "end" {
		pageDown("PageDown")
	}
	t.Logf("every press was read once and moved the lesson one step; ended at %v", now)
}
