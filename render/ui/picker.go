package ui

import (
	"math"
	"slices"

	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
)

// Picker is the lesson picker: every built-in lesson, with its title and
// summary in the window's language. It shows over everything, and time
// stands still behind it.
type Picker struct {
	Lessons []scenarios.Lesson
	Sel     int
	Err     string // why the last choice did not open
}

// OpenPicker shows the lesson picker, the lesson after the one on screen
// chosen (at the end of a lesson, the next one is a key away).
func (a *App) OpenPicker() {
	ls, err := scenarios.Lessons()
	pk := &Picker{Lessons: ls}
	if err != nil {
		pk.Err = err.Error()
	}
	if p := a.Lesson; p != nil {
		i := slices.IndexFunc(ls, func(l scenarios.Lesson) bool { return l.Name == p.Lesson().Name })
		switch {
		case i >= 0 && p.Ended():
			pk.Sel = min(i+1, len(ls)-1)
		case i >= 0:
			pk.Sel = i
		}
	}
	a.Picker = pk
	a.menu, a.Help = nil, false
	if a.Lesson != nil {
		a.Lesson.CloseOutline()
	}
}

// ClosePicker closes the picker: back to what was behind it (the lesson
// on screen, or the sandbox).
func (a *App) ClosePicker() { a.Picker = nil }

// PickerRow is one lesson's place in the picker.
type PickerRow struct {
	Index int // in Picker.Lessons
	R     Rect
}

// PickerSummaryLines is how many lines of its summary a lesson's row
// holds in the picker.
const PickerSummaryLines = 3

// Rows places the lessons the picker shows: a title line and three lines
// of summary each, under a heading, as many as the window holds; when it
// cannot hold them all, those around the chosen one (the list scrolls as
// the choice moves). It also says whether lessons are left out above and
// below.
func (pk *Picker) Rows(l Layout) (rows []PickerRow, above, below bool) {
	n := len(pk.Lessons)
	pad := l.Px(24)
	w := math.Min(l.W-2*pad, l.Px(980))
	x := (l.W - w) / 2
	top := l.Px(12) + LineH(l.Big) + l.SmallH() + l.Px(12)
	bottom := l.H - l.Px(12) - l.LineH() // room for an error line
	h := l.Px(4) + l.LineH() + PickerSummaryLines*l.SmallH() + l.Px(6)
	fit := max(1, int((bottom-top)/h))
	first := 0
	if n > fit {
		first = max(0, min(pk.Sel-fit/2, n-fit))
	}
	for i := first; i < n && i < first+fit; i++ {
		rows = append(rows, PickerRow{Index: i, R: Rect{x, top + float64(i-first)*h, w, h - l.Px(4)}})
	}
	return rows, first > 0, first+fit < n
}

// Choose opens the picker's i-th lesson.
func (a *App) Choose(i int) {
	pk := a.Picker
	if pk == nil || i < 0 || i >= len(pk.Lessons) {
		return
	}
	l, err := present.Open(pk.Lessons[i].Name, a.Lang.String(), 0)
	if err == nil {
		err = a.OpenLesson(l)
	}
	if err != nil {
		pk.Err = err.Error()
		return
	}
	a.Picker = nil
}

// pickerKey is a key while the picker is open: ↑ ↓ choose, Enter, Space
// or PageDown open, a digit opens that lesson, Esc closes the picker.
func (a *App) pickerKey(k string) {
	pk := a.Picker
	switch k {
	case "up", "left":
		pk.Sel = max(0, pk.Sel-1)
	case "down", "right", "tab":
		pk.Sel = min(len(pk.Lessons)-1, pk.Sel+1)
	case "pageup":
		// A clicker's back button goes up the list; its forward button
		// (PageDown) opens the chosen lesson, as below.
		pk.Sel = max(0, pk.Sel-1)
	case "enter", "space", "pagedown":
		a.Choose(pk.Sel)
	case "escape":
		a.ClosePicker()
	case "?":
		a.Help = true
	default:
		if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
			a.Choose(int(k[0] - '1'))
		}
	}
}
