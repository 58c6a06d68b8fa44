//go:build !linux

package wire

import "time"

// preciseAfter is time.After(d) off Linux: kqueue's waits (macOS, the
// BSDs) take a timespec; elsewhere the loop keeps the timer's
// granularity, whatever it is.
func preciseAfter(d time.Duration) <-chan time.Time { return time.After(d) }
