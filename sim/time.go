package sim

import (
	"fmt"
	"time"
)

// Time is a point in virtual time: nanoseconds since the world started.
type Time int64

// Duration returns t as an offset from the start.
func (t Time) Duration() time.Duration { return time.Duration(t) }

// Add returns t + d.
// It saturates instead of wrapping, so that an absurdly long duration
// means "never" and virtual time cannot go backwards.
func (t Time) Add(d time.Duration) Time { return t.plus(Time(d)) }

// plus is t + d, saturating at the largest Time.
func (t Time) plus(d Time) Time {
	if d > 0 && t > Never-d {
		return Never
	}
	return t + d
}

// Never is a time later than any event of a run.
const Never = Time(1<<63 - 1)

// String formats t as seconds with millisecond precision, e.g. "12.345s",
// and with microseconds where they matter, e.g. "12.345678s".
func (t Time) String() string {
	ns := int64(t)
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	sec, frac := ns/1e9, ns%1e9
	if frac%1e6 == 0 {
		return fmt.Sprintf("%s%d.%03ds", sign, sec, frac/1e6)
	}
	return fmt.Sprintf("%s%d.%06ds", sign, sec, frac/1e3)
}

// Micros formats t with microseconds always shown and right-aligned, for
// columns of times: "   2.006631s".
func (t Time) Micros() string {
	ns := int64(t)
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return fmt.Sprintf("%11s", fmt.Sprintf("%s%d.%06ds", sign, ns/1e9, ns%1e9/1e3))
}
