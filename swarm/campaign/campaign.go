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
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/raftsim/raftsim/swarm"
)

// Config is a campaign.
type Config struct {
	Options swarm.Options
	Seeds   []uint64 // the seeds to run, in order
	// Workers is how many seeds run at once. With 1, or with no Worker
	// command, they run one after the other in this process.
	Workers int
	// Worker is the command that starts a worker process, which serves
	// seeds with Serve (for raftsim: raftsim swarm --worker and the
	// options' flags).
	Worker []string
	// Progress, if set, gets a progress line now and then: seeds done,
	// the rate, failures and the time left. Terminal says it is a
	// terminal, where the line is rewritten in place.
	Progress io.Writer
	Terminal bool
}

// Run runs every seed and returns the results in seed order.
func Run(cfg Config) ([]swarm.Result, error) {
	p := newProgress(cfg)
	var results []swarm.Result
	var err error
	if cfg.Workers <= 1 || len(cfg.Worker) == 0 {
		for _, seed := range cfg.Seeds {
			r := swarm.RunSeed(seed, cfg.Options)
			results = append(results, r)
			p.done(r)
		}
	} else {
		results, err = runWorkers(cfg, p)
	}
	p.finish()
	slices.SortFunc(results, func(a, b swarm.Result) int {
		switch {
		case a.Seed < b.Seed:
			return -1
		case a.Seed > b.Seed:
			return 1
		}
		return 0
	})
	return results, err
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
// no other.
func runWorkers(cfg Config, p *progress) ([]swarm.Result, error) {
	answers := make(chan answer)
	var workers []*worker
	var readers sync.WaitGroup
	var err error
	for i := range min(cfg.Workers, len(cfg.Seeds)) {
		var w *worker
		if w, err = startWorker(cfg.Worker, i, answers, &readers); err != nil {
			break
		}
		workers = append(workers, w)
	}
	next := 0
	send := func(w *worker) error {
		for w.sent < inFlight && next < len(cfg.Seeds) {
			fmt.Fprintln(w.stdin, cfg.Seeds[next])
			next++
			w.sent++
		}
		err := w.stdin.Flush()
		if next == len(cfg.Seeds) {
			w.close()
		}
		return err
	}
	for _, w := range workers {
		if err == nil {
			err = send(w)
		}
	}
	var results []swarm.Result
	for err == nil && len(results) < len(cfg.Seeds) {
		a := <-answers
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
		results = append(results, a.r)
		p.done(a.r)
		workers[a.w].sent--
		err = send(workers[a.w])
	}
	// Every worker's input ends, so each exits; what they still say is
	// read and dropped, and only then are they waited for (exec: no Wait
	// before the reads from its pipe are done).
	for _, w := range workers {
		w.close()
	}
	go func() {
		for range answers {
		}
	}()
	readers.Wait()
	close(answers)
	for _, w := range workers {
		if werr := w.cmd.Wait(); werr != nil && err == nil {
			err = fmt.Errorf("a worker failed: %w", werr)
		}
	}
	if err == nil && len(results) != len(cfg.Seeds) {
		err = errors.New("the workers ended before every seed was run")
	}
	return results, err
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
	total    int
	n        int
	failed   int
	unknown  int
	start    time.Time
	last     time.Time
}

func newProgress(cfg Config) *progress {
	now := time.Now()
	return &progress{out: cfg.Progress, terminal: cfg.Terminal, total: len(cfg.Seeds), start: now, last: now}
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
