package netmodel

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Latency is a one-way delay, fixed when Min == Max, otherwise uniform in
// [Min, Max] at microsecond granularity.
type Latency struct {
	Min, Max time.Duration
}

// Fixed returns a latency that is always d.
func Fixed(d time.Duration) Latency { return Latency{Min: d, Max: d} }

// Draw picks one delay. A fixed latency consumes no randomness.
func (l Latency) Draw(rng *rand.Rand) time.Duration {
	if l.Max <= l.Min {
		return l.Min
	}
	span := int64((l.Max - l.Min) / time.Microsecond)
	return l.Min + time.Duration(rng.Int64N(span+1))*time.Microsecond
}

// String formats the latency the way ParseLatency reads it back.
func (l Latency) String() string {
	if l.Max <= l.Min {
		return l.Min.String()
	}
	return l.Min.String() + "-" + l.Max.String()
}

// ParseLatency reads "10ms" (fixed) or "5ms-15ms" (uniform).
func ParseLatency(s string) (Latency, error) {
	s = strings.TrimSpace(s)
	lo, hi, isRange := strings.Cut(s, "-")
	min, err := time.ParseDuration(strings.TrimSpace(lo))
	if err != nil || min < 0 {
		return Latency{}, fmt.Errorf("bad latency %q: want a duration like 10ms, or a range like 5ms-15ms", s)
	}
	if !isRange {
		return Fixed(min), nil
	}
	max, err := time.ParseDuration(strings.TrimSpace(hi))
	if err != nil || max < min {
		return Latency{}, fmt.Errorf("bad latency %q: want a range low-high with low <= high, like 5ms-15ms", s)
	}
	return Latency{Min: min, Max: max}, nil
}
