package render

import (
	"fmt"
	"math"

	"github.com/hajimehoshi/ebiten/v2/text/v2"
)

// measureSamples are texts the layout measures, in both languages.
var measureSamples = []string{
	"follower", "pre-candidate", "term 12", "voted etcd-3", "t = 12.345678s", "1/1000×", "|| scenario pause",
	"apiserver-2", "#3 put /registry/pods/default/nginx=v1 · ok at revision 4 · 12.0ms · apiserver-2 → etcd-2 → leader etcd-1",
	"预候选人", "任期 12", "投给 etcd-3", "多数派在更高的任期选出新的领导者。CheckQuorum 使旧领导者下台。", "客户端请求（最新在前）",
	"fi ffi AV To Wa", "  spaces  ", "…", "✓ × → ← ▶ ◀ ·",
}

// CheckMeasure compares the layout's measure of text (package typeface)
// with what ebiten draws (text.Advance), for sample texts at the sizes the
// window uses. It returns an error naming the first text they disagree on
// by more than a hundredth of a pixel.
func CheckMeasure(f *Fonts) (int, error) {
	n := 0
	for _, size := range []float64{11, 12, 14, 16, 17, 18, 23, 24, 28, 34, 35.5} {
		face := f.Face(size)
		for _, s := range measureSamples {
			want := text.Advance(s, face)
			got := f.Font.Advance(s, face.Size)
			if math.Abs(want-got) > 0.01 {
				return n, fmt.Errorf("%q at %g px: the layout measures %.3f, ebiten draws %.3f", s, size, got, want)
			}
			n++
		}
	}
	return n, nil
}
