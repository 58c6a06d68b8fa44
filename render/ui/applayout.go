package ui

import (
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
)

// viewOptions are the choices of how the window looks that the user
// makes: the projector layout, the legend; and what the layout measures
// text with and must hold.
type viewOptions struct {
	present  bool
	legend   LegendMode
	captions []string
	pins     int
	m        Measurer
}

// NewAppFor makes an App on a session, laid out for a screen: its size,
// scale, language, projector layout, and the font it measures text in
// (nil: the window's). The screen's cluster shape is the session's.
func NewAppFor(s *Session, sc Screen) *App {
	a := &App{S: s, speed: DefaultSpeed, scale: sc.Scale, Lang: sc.Lang, Pace: present.NewPacer(TPS)}
	a.view = viewOptions{present: sc.Present, legend: sc.Legend, captions: sc.Captions, pins: sc.Pins, m: sc.M}
	if sc.Present && sc.Legend == LegendAuto {
		a.view.legend = LegendHidden
	}
	a.L = Lay(a.screen(sc.W, sc.H))
	return a
}

// screen is what the App's layout is made for, at a window size.
func (a *App) screen(w, h int) Screen {
	hosts := a.S.World().Config().Topology != ""
	return a.screenFor(w, h, ViewShape(a.S.World().View(), hosts))
}

// screenFor is screen for a cluster of a shape.
func (a *App) screenFor(w, h int, cs ClusterShape) Screen {
	return Screen{W: w, H: h, Scale: a.scale, Lang: a.Lang, Box: a.Box.Open, Present: a.view.present, Title: a.HeaderTitle(),
		Legend: a.view.legend, Cluster: cs, Captions: a.view.captions, Pins: a.view.pins, M: a.view.m}
}

// relayout lays the App out again for its window, as it is now.
func (a *App) relayout() { a.L = Lay(a.screen(int(a.L.W), int(a.L.H))) }

// syncLayout lays the App out again when the cluster has changed shape
// (a member was added).
func (a *App) syncLayout() {
	if len(a.L.Members.Pos) != len(a.S.World().MemberNames()) {
		a.relayout()
	}
	if a.External != nil {
		// Clients outside the simulation come and go (wireclients.go).
		if k := wireKey(a.S.World()); k != a.wireKey {
			a.wireKey = k
			a.relayout()
		}
	}
}

// SetTitle names what the sandbox shows (the header says
// "raftsim · TITLE"), and lays the window out again for it.
func (a *App) SetTitle(t string) {
	a.Title = t
	a.relayout()
}

// SetLang sets the language of the window's words, and lays it out again.
func (a *App) SetLang(l i18n.Lang) {
	a.Lang = l
	a.relayout()
}

// SetPresent switches the projector layout on or off: the legend hidden
// (L shows it), the text at least 24 px high on a 1080-line screen, and
// the ring and the logs given the room.
func (a *App) SetPresent(on bool) {
	a.view.present = on
	if on {
		a.view.legend = LegendHidden
	} else {
		a.view.legend = LegendAuto
	}
	a.relayout()
}

// Present reports whether the projector layout is on.
func (a *App) Present() bool { return a.view.present }

// ToggleLegend shows the legend, or hides it if it is shown (L).
func (a *App) ToggleLegend() {
	if a.L.LegendShown {
		a.view.legend = LegendHidden
	} else {
		a.view.legend = LegendShown
	}
	a.relayout()
}

// SetCaptions gives the layout the texts its caption area must hold
// without cutting a word: a lesson's captions and questions.
func (a *App) SetCaptions(texts []string) {
	a.view.captions = texts
	a.relayout()
}

// Hover returns where the pointer is, if it has moved over the window.
func (a *App) Hover() (Point, bool) { return a.hover, a.hovering }
