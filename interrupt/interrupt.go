package interrupt

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ExitCode is the exit status of a command that stopped because it was
// interrupted: 128 + SIGINT, as a shell reports a process that SIGINT
// killed, so that scripts see the same code either way.
const ExitCode = 130

// ErrInterrupted is the error of work that stopped because it was
// interrupted. Commands wrap it, and map it to ExitCode.
var ErrInterrupted = errors.New("interrupted")

// Signals are the signals that a Catcher catches.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// Catcher catches SIGINT and SIGTERM from Catch until Stop. The zero of
// *Catcher (nil) is never interrupted, so code that takes one works
// without it (tests, the window).
type Catcher struct {
	ch   chan os.Signal
	quit chan struct{}
	wg   sync.WaitGroup

	mu   sync.Mutex
	sig  os.Signal     // the first signal since Catch or Rearm
	done chan struct{} // closed when sig is set
}

// Catch starts catching SIGINT and SIGTERM. Call Stop when the command is
// done, to give them back their default action.
func Catch() *Catcher {
	c := &Catcher{ch: make(chan os.Signal, 4), quit: make(chan struct{}), done: make(chan struct{})}
	signal.Notify(c.ch, Signals...)
	c.wg.Add(1)
	go c.loop()
	return c
}

func (c *Catcher) loop() {
	defer c.wg.Done()
	var first time.Time
	for {
		select {
		case <-c.quit:
			return
		case s := <-c.ch:
			c.mu.Lock()
			switch {
			case c.sig == nil:
				c.sig, first = s, time.Now()
				close(c.done)
			case time.Since(first) >= Again:
				// Asked again: the command is taking too long to stop.
				// The signal's default action ends the process.
				signal.Reset(Signals...)
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					_ = p.Signal(s)
				}
			}
			c.mu.Unlock()
		}
	}
}

// Again is how long after the first signal a second one ends the process
// at once. One sooner is taken as the same request: timeout(1) and a kill
// of a process group deliver one signal twice.
const Again = time.Second

// Stop stops catching the signals; they have their default action again.
func (c *Catcher) Stop() {
	if c == nil {
		return
	}
	signal.Stop(c.ch)
	close(c.quit)
	c.wg.Wait()
}

// Interrupted reports whether a signal has come since Catch (or Rearm).
func (c *Catcher) Interrupted() bool { return c.Signal() != nil }

// Signal returns the signal that came, or nil.
func (c *Catcher) Signal() os.Signal {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sig
}

// Done returns a channel that is closed when a signal comes (never, for a
// nil Catcher).
func (c *Catcher) Done() <-chan struct{} {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

// Rearm forgets the signal that came and catches the next one again: an
// interactive shell stops the command that Ctrl-C interrupted and goes on
// with the session.
func (c *Catcher) Rearm() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sig == nil {
		return
	}
	c.sig, c.done = nil, make(chan struct{})
	signal.Notify(c.ch, Signals...)
}

// Err returns an error wrapping ErrInterrupted that names the signal, or
// nil if none came.
func (c *Catcher) Err() error {
	s := c.Signal()
	if s == nil {
		return nil
	}
	return fmt.Errorf("%w by %s", ErrInterrupted, Name(s))
}

// Name is how a summary names a signal: SIGINT (Ctrl-C) or SIGTERM.
func Name(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
