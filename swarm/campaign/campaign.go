// Package campaign runs a swarm campaign: many seeds, over worker
// processes, with progress on a terminal. It is the only part of the swarm
// with goroutines and the wall clock, and neither reaches a simulation:
// each seed runs, one at a time, inside a worker process (the simulator's
// crypto/rand override is process-wide), and what a seed finds depends on
// the seed and the options alone, never on which worker ran it or when.
package campaign

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/raftsim/raftsim/swarm"
)

// Config is a campaign.
type Config struct {
	Options swarm.Options
	// Seeds and Shard say which seeds to run: the shard's seeds of the
	// range, in order. They are drawn one at a time.
	Seeds swarm.Seeds
	Shard swarm.Shard
	// Workers is how many seeds run at once. With 1, or with no Worker
	// command, they run one after the other in this process.
	Workers int
	// Worker is the command that starts a worker process, which serves
	// seeds with Serve (for raftsim: raftsim swarm --worker and the
	// options' flags).
	Worker []string
	// Result is handed each seed's result as it comes, in seed order
	// (results that come early wait for the seeds before them, at most a
	// few per worker). An error from it stops the campaign.
	Result func(swarm.Result) error
	// Stop, when closed, stops the campaign: no seed is started after it,
	// the seeds running in workers are abandoned, and Run returns what had
	// finished (Stopped). nil: never.
	Stop <-chan struct{}
	// Progress, if set, gets a progress line now and then: seeds done,
	// the rate, failures and the time left. Terminal says it is a
	// terminal, where the line is rewritten in place.
	Progress io.Writer
	Terminal bool
}

// Outcome is how a campaign ended.
type Outcome struct {
	Done    uint64 // seeds whose results were handed to Result
	Total   uint64 // seeds the campaign had
	Stopped bool   // Stop was closed before every seed ran
}

// Run runs the seeds and hands each result to cfg.Result, in seed order.
// Only the results waiting for an earlier seed are kept: a campaign's
// memory does not grow with its length. When it is stopped, the results
// that finished out of order are handed on too (still in seed order, with
// the gaps of the seeds that did not finish).
func Run(cfg Config) (Outcome, error) {
	p := newProgress(cfg)
	o := Outcome{Total: cfg.Shard.Count(cfg.Seeds)}
	emit := func(r swarm.Result) error {
		o.Done++
		p.done(r)
		return cfg.Result(r)
	}
	var err error
	if cfg.Workers <= 1 || len(cfg.Worker) == 0 {
		err = runHere(cfg, emit, &o)
	} else {
		err = runWorkers(cfg, emit, &o)
	}
	p.finish()
	return o, err
}

// stopped reports whether stop is closed.
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// runHere runs the seeds one after the other in this process, asking
// Stop between them.
func runHere(cfg Config, emit func(swarm.Result) error, o *Outcome) error {
	for seed := range cfg.Shard.All(cfg.Seeds) {
		if stopped(cfg.Stop) {
			o.Stopped = true
			return nil
		}
		if err := emit(swarm.RunSeed(seed, cfg.Options)); err != nil {
			return err
		}
	}
	return nil
}

// Serve is a worker's loop: it reads seeds, one a line, and writes each
// seed's Result as a JSON line, until its input ends.
func Serve(o swarm.Options, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for sc.Scan() {
		seed, err := strconv.ParseUint(strings.TrimSpace(sc.Text()), 10, 64)
		if err != nil {
			return fmt.Errorf("worker: bad seed %q", sc.Text())
		}
		r := swarm.RunSeed(seed, o)
		if err := enc.Encode(&r); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// inFlight is how many seeds each worker is given ahead, so that it never
// waits for the next while its result travels back.
const inFlight = 2

type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	stdin  *bufio.Writer
	sent   int // seeds sent and not yet answered
	closed bool
}

// close ends the worker's input: it answers what it has, then exits.
func (w *worker) close() {
	if !w.closed {
		w.closed = true
		w.in.Close()
	}
}

// answer is a worker's result for one seed, or, with eof, the end of
// what it says.
type answer struct {
	w   int
	r   swarm.Result
	err error
	eof bool
}

// runWorkers hands the seeds out to worker processes, a few at a time
// each, as they answer, so that a slow seed (one being shrunk) holds up
// no other, and hands the results on in seed order.
func runWorkers(cfg Config, emit func(swarm.Result) error, o *Outcome) error {
	answers := make(chan answer)
	var workers []*worker
	var readers sync.WaitGroup
	var err error
	for i := range min(uint64(cfg.Workers), o.Total) {
		var w *worker
		if w, err = startWorker(cfg.Worker, int(i), answers, &readers); err != nil {
			break
		}
		workers = append(workers, w)
	}
	next, stop := iter.Pull(cfg.Shard.All(cfg.Seeds))
	defer stop()
	more := true
	// order hands results on in seed order: each seed handed out is
	// queued, and a result waits in early until those before it came.
	var order []uint64
	early := map[uint64]swarm.Result{}
	flush := func() error {
		for len(order) > 0 {
			r, ok := early[order[0]]
			if !ok {
				return nil
			}
			delete(early, order[0])
			order = order[1:]
			if err := emit(r); err != nil {
				return err
			}
		}
		return nil
	}
	send := func(w *worker) error {
		for w.sent < inFlight && more {
			var seed uint64
			if seed, more = next(); !more {
				break
			}
			fmt.Fprintln(w.stdin, seed)
			order = append(order, seed)
			w.sent++
		}
		err := w.stdin.Flush()
		if !more {
			w.close()
		}
		return err
	}
	for _, w := range workers {
		if err == nil {
			err = send(w)
		}
	}
	got := uint64(0)
	for err == nil && got < o.Total {
		var a answer
		select {
		case a = <-answers:
		case <-cfg.Stop:
			o.Stopped = true
		}
		if o.Stopped {
			break
		}
		switch {
		case a.err != nil:
			err = fmt.Errorf("worker %d: %w", a.w+1, a.err)
		case a.eof && workers[a.w].sent > 0:
			err = fmt.Errorf("worker %d ended with %d seeds unanswered", a.w+1, workers[a.w].sent)
		}
		if err != nil {
			break
		}
		if a.eof {
			continue
		}
		got++
		early[a.r.Seed] = a.r
		if err = flush(); err != nil {
			break
		}
		workers[a.w].sent--
		err = send(workers[a.w])
	}
	if o.Stopped {
		// The seeds that finished out of turn are finished: they are
		// handed on, in order, past the gaps of those that did not.
		for _, seed := range order {
			if r, ok := early[seed]; ok && err == nil {
				err = emit(r)
			}
		}
	}
	// Every worker's input ends, so each exits (a stopped campaign kills
	// them: their seeds are abandoned); what they still say is read and
	// dropped, and only then are they waited for (exec: no Wait before the
	// reads from its pipe are done).
	for _, w := range workers {
		w.close()
		if o.Stopped || err != nil {
			_ = w.cmd.Process.Kill()
		}
	}
	go func() {
		for range answers {
		}
	}()
	readers.Wait()
	close(answers)
	for _, w := range workers {
		if werr := w.cmd.Wait(); werr != nil && err == nil && !o.Stopped {
			err = fmt.Errorf("a worker failed: %w", werr)
		}
	}
	if err == nil && !o.Stopped && o.Done != o.Total {
		err = errors.New("the workers ended before every seed was run")
	}
	return err
}

// startWorker starts worker i, and a goroutine that passes on its answers.
func startWorker(argv []string, i int, answers chan<- answer, readers *sync.WaitGroup) (*worker, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting a worker (%s): %w", strings.Join(argv, " "), err)
	}
	readers.Add(1)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r swarm.Result
			err := json.Unmarshal(sc.Bytes(), &r)
			answers <- answer{w: i, r: r, err: err}
		}
		answers <- answer{w: i, err: sc.Err(), eof: true}
	}()
	return &worker{cmd: cmd, in: in, stdin: bufio.NewWriter(in)}, nil
}

// progress shows how a campaign is going.
type progress struct {
	out      io.Writer
	terminal bool
	total    uint64
	n        uint64
	failed   int
	unknown  int
	start    time.Time
	last     time.Time
}

func newProgress(cfg Config) *progress {
	now := time.Now()
	return &progress{out: cfg.Progress, terminal: cfg.Terminal, total: cfg.Shard.Count(cfg.Seeds), start: now, last: now}
}

// done counts a result, and redraws the line at most a few times a second
// (on a terminal) or every ten seconds (in a log).
func (p *progress) done(r swarm.Result) {
	p.n++
	switch {
	case r.Verdict.Failed():
		p.failed++
	case r.Verdict == swarm.Unknown:
		p.unknown++
	}
	if p.out == nil {
		return
	}
	now := time.Now()
	every := 10 * time.Second
	if p.terminal {
		every = 200 * time.Millisecond
	}
	if now.Sub(p.last) < every && p.n < p.total {
		return
	}
	p.last = now
	line := p.line(now)
	if p.terminal {
		fmt.Fprintf(p.out, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.out, line)
	}
}

func (p *progress) line(now time.Time) string {
	elapsed := now.Sub(p.start)
	rate := float64(p.n) / max(elapsed.Seconds(), 1e-9)
	left := time.Duration(float64(p.total-p.n) / max(rate, 1e-9) * float64(time.Second))
	return fmt.Sprintf("%d/%d seeds  %.1f seeds/s  %d failed  %d unknown  %s left",
		p.n, p.total, rate, p.failed, p.unknown, left.Round(time.Second))
}

// finish ends the progress line with how long the campaign took.
func (p *progress) finish() {
	if p.out == nil {
		return
	}
	elapsed := time.Since(p.start)
	if p.terminal {
		fmt.Fprint(p.out, "\r\033[K")
	}
	fmt.Fprintf(p.out, "%d seeds in %s: %.1f seeds/s (%.0f a minute)\n", p.n, elapsed.Round(10*time.Millisecond),
		float64(p.n)/max(elapsed.Seconds(), 1e-9), 60*float64(p.n)/max(elapsed.Seconds(), 1e-9))
}
