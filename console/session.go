package console

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// bootLimit bounds how long Start waits for the first leader.
const bootLimit = 10 * time.Second

// Start prints the session's banner, seed first, and lets virtual time pass
// until the cluster has started (at most 10s), since a cluster that etcdctl
// talks to is already running: it has elected its first leader, and every
// member has heard from it, published itself and applied all the leader
// has. what names the cluster's source, e.g. "sandbox" or a scenario file.
func (c *Console) Start(what string) error {
	cfg := c.w.Config()
	program := c.opts.Program
	if program == "" {
		program = "raftsim shell"
	}
	c.printf("%s: %s, seed=%d\n", program, what, c.w.Seed())
	c.printf("members: %s; heartbeat %s, election timeout %s\n", strings.Join(cfg.Members, ", "), cfg.Tick,
		time.Duration(cfg.ElectionTicks)*cfg.Tick)
	var clients []string
	for _, cl := range c.w.Clients() {
		clients = append(clients, cl.Name+"→"+strings.Join(cl.Endpoints, ","))
	}
	switch cfg.Topology {
	case "stacked":
		c.printf("topology: stacked (each kube-apiserver talks only to the member on its host)\n")
	case "external":
		c.printf("topology: external (each kube-apiserver has every member as an endpoint and fails over)\n")
	}
	if len(clients) > 0 {
		c.printf("clients: %s\n", strings.Join(clients, "  "))
	}
	j := &job{deadline: c.w.Now().Add(bootLimit)}
	j.poll = func() bool {
		if !c.w.Started() {
			return false // etcd is still starting
		}
		l, _ := c.w.Leader()
		lead, _ := c.w.Info(l)
		c.printf("%s leads in term %d; every member is ready at %s. Type help for the verbs.\n", l, lead.Term, c.w.Now())
		return true
	}
	j.onDeadline = func() { c.printf("no leader after %s. Type help for the verbs.\n", bootLimit) }
	if c.opts.Mode == Async {
		c.jobs = append(c.jobs, j)
		return nil
	}
	return c.wait(j)
}

// MaxLineBytes bounds a command line the shell reads. etcd takes requests
// of up to 1.5 MiB (--max-request-bytes) and etcdctl sends messages of up
// to 2 MiB, so a line a little longer still reaches the check that gives
// etcd's own error; a longer one is refused, and the session goes on.
const MaxLineBytes = 3 << 20

// RunScript reads commands from r, one a line, and runs each, echoing it
// after the prompt so that the output reads like the session it was. The
// lines a txn reads are not echoed: etcdctl reads them from its standard
// input and prints none of them back (with -i, only its prompts). It
// stops at the end of input, at exit, at a safety violation (returned), or
// when Options.Interrupt reports a signal: then it returns an error that
// wraps ErrInterrupted, after the command running has stopped (even one
// waiting for more input to read). A line longer than MaxLineBytes is an
// error that ends only that line.
func (c *Console) RunScript(r io.Reader) error {
	done := make(chan struct{})
	defer close(done)
	lines := readLines(r, done)
	for {
		var l scriptLine
		select {
		case l = <-lines:
		case <-c.opts.Interrupt.Done():
			return c.stopScript()
		}
		line, n, err := l.text, l.n, l.err
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading commands: %w", err)
		}
		if errors.Is(err, io.EOF) && n == 0 {
			break
		}
		if n > MaxLineBytes {
			c.printf("%s%s...\n", c.Prompt(), line[:40])
			c.errorf("the line is %s long; the shell reads lines of at most %s (etcd takes requests of up to 1.5 MiB)",
				scenarios.FormatBytes(int64(n)), scenarios.FormatBytes(MaxLineBytes))
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		if !c.InTxn() {
			c.printf("%s%s\n", c.Prompt(), line)
		}
		execErr := c.Exec(line)
		if errors.Is(execErr, ErrQuit) {
			break
		}
		if execErr != nil {
			return execErr
		}
		if c.interrupted() {
			return c.stopScript()
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	return c.Close()
}

// stopScript ends a script that a signal interrupted: what happened up to
// now is printed, and the error says where it stopped.
func (c *Console) stopScript() error {
	if err := c.Close(); err != nil {
		return err
	}
	sig := c.opts.Interrupt.Signal()
	return fmt.Errorf("%w by %s at virtual time %s; the commands after this point were not run", ErrInterrupted, interrupt.Name(sig), c.w.Now())
}

// scriptLine is a line that readLines read: its text, its length, and the
// error that ended it (io.EOF for the last).
type scriptLine struct {
	text string
	n    int
	err  error
}

// readLines reads r, a line ahead of the commands being run, from a
// goroutine (the only one here, and it never touches the world), so that
// a script waiting for its next line can still be interrupted. It ends
// at the end of r or, once its line is taken or not wanted, when done is
// closed.
func readLines(r io.Reader, done <-chan struct{}) <-chan scriptLine {
	out := make(chan scriptLine)
	go func() {
		br := bufio.NewReaderSize(r, 64*1024)
		for {
			text, n, err := readLine(br, MaxLineBytes)
			select {
			case out <- scriptLine{text, n, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out
}

// readLine reads one line and returns it without its end (\n or \r\n), and
// its length. A line longer than max is read to its end but only its first
// max bytes are kept. At the end of input it returns io.EOF, with the last
// line if it had no newline.
func readLine(r *bufio.Reader, max int) (string, int, error) {
	var buf []byte
	n := 0
	for {
		frag, err := r.ReadSlice('\n')
		n += len(frag)
		if len(buf) < max+2 {
			buf = append(buf, frag[:min(len(frag), max+2-len(buf))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && n == 0 {
			return "", 0, err
		}
		eol := 0
		switch {
		case bytes.HasSuffix(buf, []byte("\r\n")):
			eol = 2
		case bytes.HasSuffix(buf, []byte("\n")):
			eol = 1
		}
		length := n - eol
		return string(buf[:min(length, max)]), length, err
	}
}

// Violation is the safety violation that stopped the world, if any.
func (c *Console) Violation() *sim.Violation { return c.w.Violation() }
