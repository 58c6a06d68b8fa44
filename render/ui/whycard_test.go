package ui

import (
	"strings"
	"testing"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/render/present"
	pb "go.etcd.io/raft/v3/raftpb"
)

// Clicking a rejected vote in flight in pre-vote-off opens its "why" card:
// raft's line that rejected it, and (*raft).Step around that line, the
// line highlighted, from the source embedded in the binary; Escape closes
// it and deselects. (Seen to fail while the card replayed the session's own
// branch, which holds none of a lesson's steps, and while it read only the
// send event's citations: "raft logged nothing for it".)
func TestClickingARejectedVoteShowsRaftsCode(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		l, err := present.Open("pre-vote-off", lang, 0)
		if err != nil {
			t.Fatal(err)
		}
		a := NewAppFor(newSandbox(t), Screen{W: 1920, H: 1080, Scale: 2, Present: true})
		if lang == "zh" {
			a.SetLang(i18n.Zh)
		}
		if err := a.OpenLesson(l); err != nil {
			t.Fatal(err)
		}
		var hit *MsgDraw
		for n := 0; n < TPS*60*5 && !a.Lesson.Ended() && hit == nil; n++ {
			a.Update()
			if a.Lesson.AtPause() {
				a.Handle(Key("space", false))
			}
			f := BuildFrame(a)
			for i := range f.Msgs {
				if m := f.Msgs[i].M; m.Type == pb.MsgVoteResp && m.Reject && HitTest(f, f.Msgs[i].P, a.Help).Kind == HitMessage {
					hit = &f.Msgs[i]
					break
				}
			}
		}
		if hit == nil {
			t.Fatalf("%s: no rejected vote in flight before the lesson's end", lang)
		}
		a.Handle(Input{Kind: MouseDown, At: hit.P})
		a.Handle(Input{Kind: MouseUp, At: hit.P})
		c := a.Why
		if c == nil {
			t.Fatalf("%s: clicking the message at %v opened no card", lang, hit.P)
		}
		if len(c.Log) == 0 || !strings.Contains(strings.Join(c.Log, "\n"), "rejected MsgVote") {
			t.Fatalf("%s: the card's lines do not say why: %q %q", lang, c.Lede, c.Log)
		}
		if c.Func != "(*raft).Step" || c.Hi < c.First || c.Hi >= c.First+len(c.Source) {
			t.Fatalf("%s: source %s %s lines %d+%d, highlighted %d", lang, c.File, c.Func, c.First, len(c.Source), c.Hi)
		}
		if hi := c.Source[c.Hi-c.First]; !strings.Contains(hi, "rejected %s from %x") {
			t.Fatalf("%s: the highlighted line is %q", lang, hi)
		}
		first, rows := c.Window(20)
		if c.Hi < first || c.Hi >= first+len(rows) {
			t.Fatalf("%s: a window of 20 rows from %d leaves out line %d", lang, first, c.Hi)
		}
		if lang == "zh" && !strings.Contains(strings.Join(c.Gloss, ""), "拒绝投票") {
			t.Errorf("zh: no gloss of the rejection: %q", c.Gloss)
		}
		a.Handle(Key("escape", false))
		if a.Why != nil || a.Selected != "" {
			t.Errorf("%s: escape left the card (%v) or a member selected (%q)", lang, a.Why != nil, a.Selected)
		}
	}
}
