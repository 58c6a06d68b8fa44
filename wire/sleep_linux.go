//go:build linux

package wire

import (
	"syscall"
	"time"
)

// preciseAfter is time.After(d) for a d under the timer's granularity: a
// goroutine of its own sleeps in nanosleep(2), which wakes within tens of
// microseconds, and the runtime wakes the loop when it sends. A signal
// may end the sleep early; the loop then looks again and waits for what
// is left.
func preciseAfter(d time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	go func() {
		ts := syscall.NsecToTimespec(int64(d))
		_ = syscall.Nanosleep(&ts, nil)
		c <- time.Now()
	}()
	return c
}
