package ui

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// The layout matrix: every window size, scale, language, cluster size and
// topology the issue names, in the normal and the projector layout.
var (
	matrixSizes  = [][2]int{{1024, 768}, {1280, 720}, {1920, 1080}}
	matrixScales = []float64{1, 1.5, 2}
	matrixSizesN = []int{3, 5, 7}
	matrixTopos  = []string{"", "stacked", "external"}
)

// requireCJK fails (in CI) or skips (elsewhere) when the window's font
// cannot draw Chinese: the Chinese half of the matrix needs it to measure.
func requireCJK(t *testing.T) {
	t.Helper()
	if WindowFont().CJK {
		return
	}
	if os.Getenv("RAFTSIM_REQUIRE_GUI") == "1" {
		t.Fatal("no CJK font (fonts-noto-cjk): the layout cannot be measured in Chinese")
	}
	t.Skip("no CJK font installed (fonts-noto-cjk); the matrix is measured in Chinese only with one")
}

// busySession is a cluster of n members with a topology, caught at a busy
// moment: a leader, requests answered, pending and failed, a member down,
// a link cut, messages in flight.
func busySession(t *testing.T, n int, topo string) *Session {
	t.Helper()
	cfg := sim.SandboxConfig()
	cfg.Members = nil
	for i := range n {
		cfg.Members = append(cfg.Members, fmt.Sprintf("etcd-%d", i+1))
	}
	cfg.Topology, cfg.Clients = topo, nil // three kube-apiservers, as in the sandbox
	if topo == "" {
		cfg.Clients = []sim.ClientConfig{{Name: "etcdctl", Endpoints: cfg.Members[:3]}}
	}
	s, err := NewSession(cfg)
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(3)))
	lead, ok := s.World().Leader()
	if !ok {
		t.Fatal("no leader at 3s")
	}
	var follower string
	for _, in := range s.World().Infos() {
		if in.Name != lead {
			follower = in.Name
			break
		}
	}
	for i, c := range s.World().Clients() {
		mustDo(t, s, sim.Command{Kind: sim.CmdPut, Via: c.Name, Req: server.Put(fmt.Sprintf("/registry/configmaps/kube-system/extension-apiserver-authentication-%d", i), strings.Repeat("v", 40))})
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdPut, Via: follower, Req: server.Put("/k", "v1")})
	mustDo(t, s, sim.Command{Kind: sim.CmdGet, Via: follower, Req: server.Get("/k", true)})
	must(t, s.Seek(sec(3.3)))
	mustDo(t, s, sim.Command{Kind: sim.CmdCrash, Node: lead})
	mustDo(t, s, sim.Command{Kind: sim.CmdPut, Via: follower, Req: server.Put("/lost", "x")})
	other := s.World().MemberNames()[0]
	if other == lead || other == follower {
		other = s.World().MemberNames()[n-1]
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdCut, From: follower, To: other})
	must(t, s.Seek(sec(4.2)))
	return s
}

// TestLayoutMatrix lays out every screen of the matrix over a busy
// cluster and checks, measuring every word in the window's own font:
// everything fits (at the scale asked for, or one the window can hold);
// panels and the words in them lie inside the window and do not overlap;
// no essential word (a role, a term, a name, the time, a status, a
// button) is shortened, and none is wider than its box; members, their
// labels and their hosts do not overlap; a lesson's longest caption is
// never cut; the projector layout's text is at least 24 px high at
// 1920×1080.
func TestLayoutMatrix(t *testing.T) {
	requireCJK(t)
	captions := lessonCaptions(t)
	reduced := 0
	total := 0
	for _, n := range matrixSizesN {
		for _, topo := range matrixTopos {
			s := busySession(t, n, topo)
			for _, sz := range matrixSizes {
				for _, scale := range matrixScales {
					for _, lang := range i18n.Langs {
						for _, present := range []bool{false, true} {
							sc := Screen{W: sz[0], H: sz[1], Scale: scale, Lang: lang, Present: present, Captions: captions[lang]}
							where := fmt.Sprintf("%dx%d@%g %s present=%v, %d members, topology %q", sz[0], sz[1], scale, lang, present, n, topo)
							a := NewAppFor(s, sc)
							a.SetTitle("external-failover: External etcd: an apiserver fails over when its member crashes")
							total++
							if a.L.S < scale-1e-9 && !present {
								reduced++
								t.Logf("%s: drawn at scale %.2f", where, a.L.S)
							}
							checkLayout(t, where, a, captions[lang])
						}
					}
				}
			}
		}
	}
	t.Logf("%d screens; %d drawn at a smaller scale than asked, to fit", total, reduced)
}

// lessonCaptions returns every caption and question of the lessons, in
// each language, as the presenter shows them.
func lessonCaptions(t *testing.T) map[i18n.Lang][]string {
	t.Helper()
	ls, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	out := map[i18n.Lang][]string{}
	for _, l := range ls {
		s, err := scenarios.LoadLesson(l.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range s.Steps {
			if !st.Kind.Narrative() {
				continue
			}
			for _, lang := range i18n.Langs {
				out[lang] = append(out[lang], st.Text.In(lang.String()))
			}
		}
	}
	return out
}

func f0(a *App) *Frame { return BuildFrame(a) }

func checkLayout(t *testing.T, where string, a *App, captions []string) {
	t.Helper()
	l := a.L
	if !l.Fits {
		t.Errorf("%s: does not fit even at scale %.2f", where, l.S)
		return
	}
	// The projector layout's smallest text is at least 24 px high at
	// 1920×1080 for clusters of up to five members; seven members need a
	// little less (22 px, and 21 px on hosts, whose labels, apiservers
	// and links keep clear of one another).
	if want := 24.0; l.Present && l.W == 1920 && l.H == 1080 {
		if len(f0(a).View.Members) > 5 {
			want = 22
			if a.S.World().Config().Topology != "" {
				want = 21
			}
		}
		if l.Small < want {
			t.Errorf("%s: the projector layout's small text is %.0f px, want at least %.0f", where, l.Small, want)
		}
	}
	screen := Rect{0, 0, l.W, l.H}
	named := l.Named()
	for na, ra := range named {
		if ra.W <= 0 || ra.H <= 0 || !ra.Inside(screen) {
			t.Errorf("%s: %s %+v is empty or off screen", where, na, ra)
		}
		for nb, rb := range named {
			if na < nb && ra.Overlaps(rb) {
				t.Errorf("%s: %s %+v overlaps %s %+v", where, na, ra, nb, rb)
			}
		}
	}
	for i, b := range l.Buttons {
		if !b.Rect.Inside(l.Toolbar) {
			t.Errorf("%s: button %q is outside the toolbar", where, b.Label)
		}
		for _, c := range l.Buttons[i+1:] {
			if b.Rect.Overlaps(c.Rect) {
				t.Errorf("%s: buttons %q and %q overlap", where, b.Label, c.Label)
			}
		}
	}
	f := BuildFrame(a)
	var items []TextItem
	// The header, with a long title, the past and every field.
	hdr := l.PlaceHeader(HeaderText{Title: a.HeaderTitle(), Chapter: "2/3 " + strings.Repeat("chapter ", 4),
		Step: "step 12/18", Clock: "t = 12.345678s", Rate: "1/1000×", State: l.Lang.T("|| scenario pause"), Note: l.Lang.F("◀ viewing the past (head %s)", sim.Time(12*time.Second))})
	for _, want := range []string{"t = 12.345678s", "1/1000×", "step 12/18", l.Lang.T("|| scenario pause")} {
		if !hasText(hdr, want) {
			t.Errorf("%s: the header lost %q", where, want)
		}
	}
	// The title keeps at least its first TitleKeeps characters.
	if want := strings.TrimSuffix(TitleMin(a.HeaderTitle()), "…"); !hasPrefixItem(hdr, want) {
		t.Errorf("%s: the header's title is cut short of %q", where, want)
	}
	for _, it := range hdr {
		if !it.R.Inside(l.Toolbar) {
			t.Errorf("%s: header text %q %+v is outside the toolbar", where, it.S, it.R)
		}
		for _, b := range l.Buttons {
			if it.R.Overlaps(b.Rect) {
				t.Errorf("%s: header text %q overlaps the button %q", where, it.S, b.Label)
			}
		}
	}
	items = append(items, hdr...)
	items = append(items, f.Texts...)
	// The caption area, with the lesson's longest caption and question.
	longest := ""
	for _, c := range captions {
		if len([]rune(c)) > len([]rune(longest)) {
			longest = c
		}
	}
	capItems, _ := l.PlaceCaption(CaptionText{Chapter: "Chapter 2/3 · The partition", Right: "step 12 of 18", Text: longest})
	items = append(items, capItems...)
	for _, it := range capItems {
		if !it.R.Inside(l.Caption) {
			t.Errorf("%s: caption text %q is outside the caption area", where, it.S)
		}
	}
	for _, c := range captions {
		ci, _ := l.PlaceCaption(CaptionText{Text: c})
		for _, it := range ci {
			if it.Cut {
				t.Errorf("%s: a lesson's caption is cut: %q", where, c)
				break
			}
		}
	}
	for i, it := range items {
		w := l.Width(it.S, it.Size)
		if it.S == "" {
			continue
		}
		if !it.R.Inside(screen) {
			t.Errorf("%s: %q %+v is off screen", where, it.S, it.R)
		}
		if w > it.R.W+0.5 {
			t.Errorf("%s: %q is %.1f px wide, its box %.1f", where, it.S, w, it.R.W)
		}
		if it.Essential && (it.Cut || strings.HasSuffix(it.S, "…")) {
			t.Errorf("%s: the essential %q is shortened", where, it.S)
		}
		for _, o := range items[i+1:] {
			if o.S != "" && it.R.Inset(0.5).Overlaps(o.R.Inset(0.5)) && !badge(it, o, f) {
				t.Errorf("%s: %q %+v overlaps %q %+v", where, it.S, it.R, o.S, o.R)
			}
		}
	}
	checkRing(t, where, f)
	checkRingOverlaps(t, where, f)
	checkLogs(t, where, f)
	checkOpRows(t, where, a, f)
	checkMarks(t, where, f)
	checkPlates(t, where, f)
	if l.LegendShown {
		for _, sl := range l.LegendSlots() {
			if !sl.Text.R.Inside(l.Legend) {
				t.Errorf("%s: the legend's %q is outside it", where, sl.Text.S)
			}
		}
	}
	// Every role and term label the ring may show fits its box.
	for _, r := range roleSamples {
		if w := l.Width(l.Lang.T(StyleOfRole(r).Label), l.Small); w > f.Ring.LabelW {
			t.Errorf("%s: the role %q is %.1f px wide, the labels %.1f", where, l.Lang.T(StyleOfRole(r).Label), w, f.Ring.LabelW)
		}
	}
}

// badge reports whether two texts may overlap by design: a client box's
// count of pending requests sits on its corner.
func badge(a, b TextItem, f *Frame) bool {
	for _, c := range f.Clients {
		if c.Pending > 0 && (a.R.Inside(c.R) || b.R.Inside(c.R)) {
			return true
		}
	}
	return false
}

func hasText(items []TextItem, s string) bool {
	for _, it := range items {
		if it.S == s {
			return true
		}
	}
	return false
}

// checkRing checks the members: each inside the ring panel with its
// crown, labels and client box; no two overlapping; each name inside its
// shape; what runs on a host inside it; the external clients' boxes and
// chips inside the panel and clear of the members.
func checkRing(t *testing.T, where string, f *Frame) {
	t.Helper()
	g := f.Ring
	for i := range g.Pos {
		fp := g.Footprint(i)
		if !fp.Inside(f.L.Ring) {
			t.Errorf("%s: member %d's room %+v is outside the ring panel %+v", where, i, fp, f.L.Ring)
		}
		if !f.Labels[i].Inside(fp) {
			t.Errorf("%s: member %d's labels stick out of its room", where, i)
		}
		for j := i + 1; j < len(g.Pos); j++ {
			if fp.Overlaps(g.Footprint(j)) {
				t.Errorf("%s: members %d and %d overlap", where, i, j)
			}
		}
		for _, c := range f.Clients {
			if len(c.Endpoints) > 0 && fp.Overlaps(c.R) {
				t.Errorf("%s: %s's box overlaps member %d", where, c.Name, i)
			}
		}
		name := f.View.Members[i].Name
		if w := f.L.Width(name, g.NameSize); w > 1.7*g.NodeR {
			t.Errorf("%s: %s is %.1f px wide in a shape of radius %.1f", where, name, w, g.NodeR)
		}
	}
	for _, h := range f.Hosts {
		if !h.R.Inside(f.L.Ring) {
			t.Errorf("%s: the host of %s%s is outside the ring panel", where, h.Member, h.Client)
		}
		for _, c := range f.Clients {
			if c.Name == h.Client && !c.R.Inside(h.R) {
				t.Errorf("%s: %s sticks out of its host", where, c.Name)
			}
		}
	}
	for i, c := range f.Clients {
		if !c.R.Inside(f.L.Ring) {
			t.Errorf("%s: %s's box is outside the ring panel", where, c.Name)
		}
		for _, ch := range c.Chips {
			if !ch.Inside(c.R) {
				t.Errorf("%s: a chip of %s is outside its box", where, c.Name)
			}
		}
		for _, o := range f.Clients[i+1:] {
			if c.R.Overlaps(o.R) {
				t.Errorf("%s: the boxes of %s and %s overlap", where, c.Name, o.Name)
			}
		}
	}
}

// checkLogs checks that every entry's cell shows its term, in the small
// font (terms under 100), inside the logs panel.
func checkLogs(t *testing.T, where string, f *Frame) {
	t.Helper()
	rows, _ := f.LogRows()
	// Whose view the progress column is; both, when two members lead.
	if want, got := len(leaders(f.View)), len(f.LogPanel().Views); want != got {
		t.Errorf("%s: %d members lead, the logs show %d views", where, want, got)
	}
	if len(rows) != len(f.View.Members) {
		t.Errorf("%s: %d log rows for %d members", where, len(rows), len(f.View.Members))
	}
	for _, r := range rows {
		for _, c := range r.Cells {
			if !c.R.Inside(f.L.Logs) {
				t.Errorf("%s: %s's cell %d is outside the logs panel", where, r.Name, c.Index)
			}
			if c.Compacted {
				continue
			}
			s := fmt.Sprint(c.Term)
			found := false
			for _, it := range f.Texts {
				if it.S == s && it.R.Inside(Rect{c.R.X - 0.5, c.R.Y - f.L.Small, c.R.W + 1, c.R.H + 2*f.L.Small}) && it.R.Center().X == c.R.Center().X {
					found = it.Size == f.L.Small || c.Term >= 100
				}
			}
			if !found {
				t.Errorf("%s: %s's cell %d does not show its term %d", where, r.Name, c.Index, c.Term)
			}
		}
	}
}

// A drop at a link that has healed is not drawn: "partition" stays only
// while the partition does.
func TestDropMarksGoWithTheCut(t *testing.T) {
	s, err := NewSession(sim.SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	must(t, s.Seek(sec(3)))
	mustDo(t, s, sim.Command{Kind: sim.CmdIsolate, Node: "etcd-1"})
	must(t, s.Seek(sec(3.5)))
	a := NewApp(s, 1280, 800, 1)
	a.SetSpeed(1) // marks last a second of virtual time
	cutDrops := func() int {
		n := 0
		for _, d := range BuildFrame(a).Drops {
			if d.Reason == netmodel.DropCut {
				n++
			}
		}
		return n
	}
	if cutDrops() == 0 {
		t.Fatal("no drop marks on the isolated member's links")
	}
	mustDo(t, s, sim.Command{Kind: sim.CmdHeal})
	if n := cutDrops(); n != 0 {
		t.Errorf("%d partition drop marks after the heal", n)
	}
}

// hasPrefixItem reports whether an item's text begins with s.
func hasPrefixItem(items []TextItem, s string) bool {
	for _, it := range items {
		if strings.HasPrefix(it.S, s) {
			return true
		}
	}
	return false
}

// Every lesson's title keeps at least its first TitleKeeps characters (all
// of it if shorter) in the header, with the step, the clock, the rate and
// the play state whole, at every projector size and scale, in both
// languages: the buttons give way first, into the menu button. (At
// 1024x768 every title was cut to a word or two while "next delivery",
// "heal all" and "legend" kept their places.)
func TestHeaderKeepsTheTitle(t *testing.T) {
	requireCJK(t)
	lessons, err := scenarios.Lessons()
	if err != nil {
		t.Fatal(err)
	}
	for _, ls := range lessons {
		for _, lang := range i18n.Langs {
			l, err := present.Open(ls.Name, lang.String(), 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, sc := range []Screen{{W: 1024, H: 768, Scale: 1}, {W: 1024, H: 768, Scale: 2}, {W: 1920, H: 1080, Scale: 1}, {W: 1920, H: 1080, Scale: 2}} {
				sc.Lang, sc.Present = lang, true
				a := NewAppFor(newSandbox(t), sc)
				if err := a.OpenLesson(l); err != nil {
					t.Fatal(err)
				}
				a.Handle(Key("pagedown", false))
				where := fmt.Sprintf("%s %s %dx%d@%g", ls.Name, lang, sc.W, sc.H, sc.Scale)
				h := a.Header()
				h.Step, h.Clock, h.State = lang.F("step %d/%d", 18, 18), "t = 12.345678s", lang.T("|| question")
				items := a.L.PlaceHeader(h)
				if want := strings.TrimSuffix(TitleMin(h.Title), "…"); !hasPrefixItem(items, want) {
					t.Errorf("%s: the title is cut short of %q: %q", where, want, items[len(items)-1].S)
				}
				for _, f := range []string{h.Step, h.Clock, h.Rate, h.State} {
					if !hasText(items, f) {
						t.Errorf("%s: the header lost %q", where, f)
					}
				}
				for _, it := range items {
					for _, b := range a.L.Buttons {
						if it.R.Overlaps(b.Rect) {
							t.Errorf("%s: %q overlaps the button %q", where, it.S, b.Label)
						}
					}
				}
			}
		}
	}
}
