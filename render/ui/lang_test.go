package ui

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/sim"
)

// dataWords are the Latin words of what the window shows as data, not
// as its own words: names, keys, values, results, and etcd's errors
// (written as etcd writes them, for engineers who search for them).
func dataWords(v sim.View) map[string]bool {
	words := regexp.MustCompile(`[A-Za-z][A-Za-z_]*`)
	out := map[string]bool{}
	add := func(s string) {
		for _, w := range words.FindAllString(s, -1) {
			out[w] = true
		}
	}
	for _, m := range v.Members {
		add(m.Name)
	}
	for _, c := range v.Clients {
		add(c.Name)
	}
	for _, op := range v.Ops {
		add(op.Client)
		add(op.Key())
		add(op.Value())
		add(op.Err)
		add(op.StaleValue())
		add(op.Kind.String())
		for _, kv := range op.KVs() {
			add(string(kv.Key))
			add(string(kv.Value))
		}
	}
	return out
}

// englishIn returns what a Chinese window shows in English: every word of
// its own (not data) that the Chinese text does not keep on purpose.
func englishIn(a *App, f *Frame) []string {
	data := dataWords(f.View)
	var texts []string
	for _, it := range f.Texts {
		texts = append(texts, it.S)
	}
	h := a.Header()
	texts = append(texts, h.Title, h.Chapter, h.Step, h.Rate, h.State)
	for _, b := range a.L.Buttons {
		texts = append(texts, a.L.Lang.T(b.Label))
	}
	if a.L.LegendShown {
		for _, sl := range a.L.LegendSlots() {
			texts = append(texts, sl.Text.S)
		}
	}
	if f.Menu != nil {
		for _, it := range f.Menu.Items {
			texts = append(texts, a.L.Lang.T(it.Label))
		}
	}
	for _, d := range f.Drops {
		texts = append(texts, a.L.Lang.T(DropWord(d.Reason)))
	}
	var out []string
	for _, s := range texts {
		out = append(out, foreignIn(s, data)...)
	}
	return out
}

// foreignIn returns the words of s left in English, data aside.
func foreignIn(s string, data map[string]bool) []string {
	var out []string
	for _, w := range i18n.Foreign(s) {
		if !data[w] {
			out = append(out, fmt.Sprintf("%q in %q", w, s))
		}
	}
	return out
}

// keyNames are the words of the help's key column: the keys' own names.
var keyNames = map[string]bool{"space": true, "escape": true}

func init() {
	for c := 'a'; c <= 'z'; c++ {
		keyNames[string(c)], keyNames[string(c-'a'+'A')] = true, true
	}
}

// The whole window speaks Chinese under --lang zh, not only what goes
// through the catalog: every word it draws (panels, header, buttons,
// legend, menus) is checked, over busy clusters of each topology with a
// member's menu open, over the help overlay (its key column may name
// keys), and over every 20th frame of the stale-read lesson (its clients
// panel explains a stale read). The log panel's heading "match · next ·
// state", the stale read's note and the help's ": or `" were English
// before.
func TestTheWindowSpeaksChinese(t *testing.T) {
	seen := map[string]bool{}
	report := func(where string, words []string) {
		for _, w := range words {
			if !seen[w] {
				seen[w] = true
				t.Errorf("%s: English in the Chinese window: %s", where, w)
			}
		}
	}
	// The help overlay, with the presenter's section as the window adds it.
	presenter := HelpSection{Title: i18n.Zh.T("In a lesson (presenter)")}
	for _, k := range PresenterKeys {
		presenter.Lines = append(presenter.Lines, [2]string{k.Key, i18n.Zh.T(k.What)})
	}
	for _, sec := range HelpSections(i18n.Zh, presenter) {
		for _, s := range append([]string{sec.Title}, i18n.Zh.T("press any key or click to close")) {
			report("help", foreignIn(s, nil))
		}
		for _, ln := range sec.Lines {
			report("help: "+sec.Title, foreignIn(ln[1], nil))
			report("help: "+sec.Title+": the keys", foreignIn(ln[0], keyNames))
		}
	}
	for _, topo := range matrixTopos {
		s := busySession(t, 5, topo)
		a := NewAppFor(s, Screen{W: 1920, H: 1080, Scale: 1, Lang: i18n.Zh})
		report("busy "+topo, englishIn(a, BuildFrame(a)))
		for _, m := range s.World().MemberNames() {
			a.menu = &menuState{target: m}
			report("menu of "+m, englishIn(a, BuildFrame(a)))
		}
		for _, c := range s.World().Clients() {
			a.menu = &menuState{target: c.Name, client: true}
			report("menu of "+c.Name, englishIn(a, BuildFrame(a)))
		}
	}
	l, err := present.Open("stale-read", "zh", 0)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAppFor(newSandbox(t), Screen{W: 1920, H: 1080, Scale: 1, Lang: i18n.Zh})
	if err := a.OpenLesson(l); err != nil {
		t.Fatal(err)
	}
	stale := false
	for n := 0; n < TPS*60*10 && !a.Lesson.Ended(); n++ {
		a.Update()
		if a.Lesson.AtPause() {
			a.Handle(Key("space", false))
		}
		if n%20 != 0 {
			continue
		}
		f := BuildFrame(a)
		for _, op := range f.View.Ops {
			stale = stale || op.Stale
		}
		report(fmt.Sprintf("stale-read at %v", f.View.Now), englishIn(a, f))
	}
	if !stale {
		t.Error("the stale-read lesson showed no stale read")
	}
}
