package netmodel

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Ratio is a probability written as a fraction, Num out of Den. Probabilities
// are ratios, not floats, so that a draw is exact and the same on every
// machine. The zero Ratio never hits.
type Ratio struct {
	Num, Den uint64
}

// IsZero reports whether the ratio can never hit.
func (r Ratio) IsZero() bool { return r.Num == 0 || r.Den == 0 }

// Hit draws one trial. It consumes a draw from rng only when the ratio is
// neither 0 nor 1, so that a loss-free network uses no randomness for loss.
func (r Ratio) Hit(rng *rand.Rand) bool {
	if r.IsZero() {
		return false
	}
	if r.Num >= r.Den {
		return true
	}
	return rng.Uint64N(r.Den) < r.Num
}

// String formats the ratio the way ParseRatio reads it back.
func (r Ratio) String() string {
	if r.IsZero() {
		return "0%"
	}
	if r.Den == 100 {
		return strconv.FormatUint(r.Num, 10) + "%"
	}
	return fmt.Sprintf("%d/%d", r.Num, r.Den)
}

// ParseRatio reads "5%", "0.5%" or "1/100".
func ParseRatio(s string) (Ratio, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("bad ratio %q: want a percentage like 5%% or 0.5%%, or a fraction like 1/100", s)
	if num, den, ok := strings.Cut(s, "/"); ok {
		n, err1 := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
		d, err2 := strconv.ParseUint(strings.TrimSpace(den), 10, 64)
		if err1 != nil || err2 != nil || d == 0 || n > d {
			return Ratio{}, bad
		}
		return Ratio{Num: n, Den: d}, nil
	}
	pct, ok := strings.CutSuffix(s, "%")
	if !ok {
		return Ratio{}, bad
	}
	whole, frac, _ := strings.Cut(pct, ".")
	if whole == "" || len(frac) > 6 {
		return Ratio{}, bad
	}
	den := uint64(100)
	for range len(frac) {
		den *= 10
	}
	n, err := strconv.ParseUint(whole+frac, 10, 64)
	if err != nil || n > den {
		return Ratio{}, bad
	}
	return Ratio{Num: n, Den: den}, nil
}
