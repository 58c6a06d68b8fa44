package ui

// InputKind is the kind of an input event.
type InputKind uint8

// The input events the App understands. The render package turns ebiten's
// input into these; tests and the monkey test make them directly, so every
// path from a click to a command can be driven without a display.
const (
	MouseDown InputKind = iota
	MouseUp
	MouseMove
	KeyPress
	TextInput // characters typed (for the command box), in Text
	Wheel     // the mouse wheel turned by DY notches (positive: away from the user)
)

// Input is one input event.
type Input struct {
	Kind InputKind
	At   Point  // the pointer, for mouse events
	Key  string // for KeyPress: "a".."z", "0".."9", "space", "escape", "left", "right", "f12", "?", "+", "-",
	// ":" (the command box); and for the box: "enter", "backspace", "delete", "up", "down", "home", "end", "pageup", "pagedown"
	Shift bool    // shift held (mouse and keys)
	Text  string  // for TextInput
	DY    float64 // for Wheel
}

// Click returns the two events of a click at p.
func Click(p Point, shift bool) []Input {
	return []Input{{Kind: MouseDown, At: p, Shift: shift}, {Kind: MouseUp, At: p, Shift: shift}}
}

// Drag returns the events of a drag from a to b.
func Drag(a, b Point, shift bool) []Input {
	return []Input{{Kind: MouseDown, At: a, Shift: shift}, {Kind: MouseMove, At: a.Lerp(b, 0.5), Shift: shift},
		{Kind: MouseMove, At: b, Shift: shift}, {Kind: MouseUp, At: b, Shift: shift}}
}

// Key returns a key press.
func Key(k string, shift bool) Input { return Input{Kind: KeyPress, Key: k, Shift: shift} }

// Type returns the event of typing text (into the command box).
func Type(text string) Input { return Input{Kind: TextInput, Text: text} }
