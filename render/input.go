package render

import (
	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/raftsim/raftsim/render/ui"
)

// inputReader turns ebiten's mouse and keyboard into ui.Input events, the
// way the blocks example wraps inpututil in meaningful methods.
type inputReader struct {
	lastX, lastY int
	keys         []ebiten.Key
	chars        []rune
}

// repeatKeys repeat while held, for editing in the command box (and
// scrolling it, the only place PageUp and PageDown repeat: a presenter's
// PageDown or PageUp is one step per press, however long the clicker
// holds it, or a slow frame keeps it down, since ebiten runs the ticks it
// missed with the key still pressed).
var repeatKeys = []ebiten.Key{ebiten.KeyBackspace, ebiten.KeyDelete, ebiten.KeyArrowLeft, ebiten.KeyArrowRight,
	ebiten.KeyArrowUp, ebiten.KeyArrowDown, ebiten.KeyPageUp, ebiten.KeyPageDown}

// held reports whether a held key repeats this tick: after half a second
// of ticks, every third tick. It counts ticks, never the wall clock.
func held(k ebiten.Key) bool {
	d := inpututil.KeyPressDuration(k)
	return d > 30 && (d-30)%3 == 0
}

// read returns this tick's input events. PageUp and PageDown repeat when
// held only while the command box is open (to scroll it).
func (r *inputReader) read(box bool) []ui.Input {
	var out []ui.Input
	shift := ebiten.IsKeyPressed(ebiten.KeyShift)
	x, y := ebiten.CursorPosition()
	at := ui.Point{X: float64(x), Y: float64(y)}
	if x != r.lastX || y != r.lastY {
		out = append(out, ui.Input{Kind: ui.MouseMove, At: at, Shift: shift})
		r.lastX, r.lastY = x, y
	}
	if inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft) {
		out = append(out, ui.Input{Kind: ui.MouseDown, At: at, Shift: shift})
	}
	if inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft) {
		out = append(out, ui.Input{Kind: ui.MouseUp, At: at, Shift: shift})
	}
	if _, dy := ebiten.Wheel(); dy != 0 {
		out = append(out, ui.Input{Kind: ui.Wheel, At: at, DY: dy})
	}
	// Typed characters (for the command box), as the keyboard layout
	// makes them; the App ignores them unless the box is open or they
	// open it.
	r.chars = ebiten.AppendInputChars(r.chars[:0])
	if len(r.chars) > 0 {
		out = append(out, ui.Input{Kind: ui.TextInput, Text: string(r.chars)})
	}
	r.keys = inpututil.AppendJustPressedKeys(r.keys[:0])
	for _, k := range repeatKeys {
		if (box || k != ebiten.KeyPageUp && k != ebiten.KeyPageDown) && held(k) {
			r.keys = append(r.keys, k)
		}
	}
	for _, k := range r.keys {
		if name := keyName(k, shift); name != "" {
			out = append(out, ui.Input{Kind: ui.KeyPress, Key: name, Shift: shift})
		}
	}
	return out
}

// keyName names a key as the ui package does.
func keyName(k ebiten.Key, shift bool) string {
	switch {
	case k >= ebiten.KeyA && k <= ebiten.KeyZ:
		return string(rune('a' + (k - ebiten.KeyA)))
	case k >= ebiten.KeyDigit1 && k <= ebiten.KeyDigit9:
		return string(rune('1' + (k - ebiten.KeyDigit1)))
	case k >= ebiten.KeyNumpad1 && k <= ebiten.KeyNumpad9:
		return string(rune('1' + (k - ebiten.KeyNumpad1)))
	}
	switch k {
	case ebiten.KeySpace:
		return "space"
	case ebiten.KeyEscape:
		return "escape"
	case ebiten.KeyArrowLeft:
		return "left"
	case ebiten.KeyArrowRight:
		return "right"
	case ebiten.KeyF12:
		return "f12"
	case ebiten.KeySlash:
		if shift {
			return "?"
		}
	case ebiten.KeyF1:
		return "?"
	case ebiten.KeyEqual, ebiten.KeyNumpadAdd:
		return "+"
	case ebiten.KeyMinus, ebiten.KeyNumpadSubtract:
		return "-"
	case ebiten.KeyPeriod:
		return "n"
	case ebiten.KeyEnter, ebiten.KeyNumpadEnter:
		return "enter"
	case ebiten.KeyBackspace:
		return "backspace"
	case ebiten.KeyDelete:
		return "delete"
	case ebiten.KeyArrowUp:
		return "up"
	case ebiten.KeyArrowDown:
		return "down"
	case ebiten.KeyHome:
		return "home"
	case ebiten.KeyEnd:
		return "end"
	case ebiten.KeyPageUp:
		return "pageup"
	case ebiten.KeyPageDown:
		return "pagedown"
	case ebiten.KeyTab:
		return "tab"
	}
	return ""
}
