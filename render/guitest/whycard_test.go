package guitest

import (
	"path/filepath"
	"strings"
	"testing"
)

// In the real window, a click on a rejected vote in flight (pre-vote-off
// at 7.937 s, the projector layout at 1920x1080, scale 2) opens its why
// card, and a class reads raft's function name and its deciding line on
// it. Chinese is read by hand (docs/gui.md) and its gloss checked by
// render/ui's TestClickingARejectedVoteShowsRaftsCode: OCR of the whole
// Chinese screen takes a minute here. (Seen to fail with the deciding
// line's band at 55% yellow: OCR did not find "r.logger.Infof" on it.)
func TestWhyCardReads(t *testing.T) {
	for _, lang := range []string{"en"} {
		out := filepath.Join(t.TempDir(), "why.png")
		runGUI(t, "play", "pre-vote-off", "--lang", lang, "--screenshot-at", "7.937s", "--out", out, "--paused",
			"--size", "1920x1080", "--scale", "2", "--present", "--input", "click:MsgVoteResp-reject")
		text, err := readScreen(out, lang)
		if err != nil {
			t.Fatal(err)
		}
		flat := strings.Join(strings.Fields(text), " ")
		for _, want := range []string{"(*raft).Step", "1259", "rejected", "r.logger.Infof"} {
			if !strings.Contains(flat, want) {
				t.Errorf("%s: OCR finds no %q on the card:\n%s", lang, want, flat)
			}
		}
	}
}
