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
}

// read returns this tick's input events.
func (r *inputReader) read() []ui.Input {
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
	r.keys = inpututil.AppendJustPressedKeys(r.keys[:0])
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
	}
	return ""
}
