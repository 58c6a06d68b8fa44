package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/experiment"
	"github.com/raftsim/raftsim/interrupt"
)

// workerArg is the hidden experiment a worker process runs: raftsim
// re-executes itself as `raftsim experiment worker` and hands it its share
// of the plan on standard input.
const workerArg = "worker"

// workerJob is what a worker process reads.
type workerJob struct {
	Plan    experiment.Plan
	Worker  int
	Workers int
}

// runPlan runs a plan over workers processes: this one runs share 0 while
// workers-1 copies of this binary run the others, and the trials are
// merged in trial order, so that the results are the same for any number
// of workers. It draws a progress bar on stderr while that is a terminal.
// When stop is signalled it stops between trials, stops the workers, and
// returns the trials that finished (stopped true).
func runPlan(p experiment.Plan, workers int, stderr io.Writer, stop *interrupt.Catcher) (res *experiment.Results, stopped bool, err error) {
	defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
	bar := newProgress(stderr, p.Total())
	defer bar.stop()
	type child struct {
		cmd    *exec.Cmd
		stderr bytes.Buffer
		trials []experiment.Trial
		err    error
	}
	var children []*child
	var wg sync.WaitGroup
	if workers > 1 {
		self, err := os.Executable()
		if err != nil {
			return nil, false, fmt.Errorf("finding this binary to start workers: %w", err)
		}
		for k := 1; k < workers; k++ {
			in, err := json.Marshal(workerJob{Plan: p, Worker: k, Workers: workers})
			if err != nil {
				return nil, false, err
			}
			c := &child{cmd: exec.Command(self, "experiment", workerArg)}
			c.cmd.Stdin = bytes.NewReader(in)
			c.cmd.Stderr = &c.stderr
			out, err := c.cmd.StdoutPipe()
			if err != nil {
				return nil, false, err
			}
			if err := c.cmd.Start(); err != nil {
				return nil, false, fmt.Errorf("starting a worker: %w", err)
			}
			children = append(children, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					var t experiment.Trial
					if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
						c.err = fmt.Errorf("a worker said %q: %w", sc.Text(), err)
						break
					}
					c.trials = append(c.trials, t)
					bar.add(1)
				}
				io.Copy(io.Discard, out)
				if err := c.cmd.Wait(); err != nil && c.err == nil {
					c.err = fmt.Errorf("a worker failed: %v: %s", err, bytes.TrimSpace(c.stderr.Bytes()))
				}
			}()
		}
	}
	var trials []experiment.Trial
	err = experiment.RunShare(p, 0, workers, func(t experiment.Trial) error {
		trials = append(trials, t)
		bar.add(1)
		if stop.Interrupted() {
			return interrupt.ErrInterrupted
		}
		return nil
	})
	stopped = errors.Is(err, interrupt.ErrInterrupted)
	kill := func() {
		for _, c := range children {
			c.cmd.Process.Kill()
		}
	}
	if err != nil {
		kill()
	}
	// The workers may still be at it when this share is done: a signal
	// stops them too.
	workersDone := make(chan struct{})
	go func() { wg.Wait(); close(workersDone) }()
	select {
	case <-workersDone:
	case <-stop.Done():
		kill()
		<-workersDone
	}
	if stopped || stop.Interrupted() {
		// The trials that finished, this process's and the workers'
		// (a worker killed mid-line said nothing more).
		for _, c := range children {
			trials = append(trials, c.trials...)
		}
		return experiment.CollectSome(p, trials), true, nil
	}
	if err != nil {
		return nil, false, err
	}
	for _, c := range children {
		if c.err != nil {
			return nil, false, c.err
		}
		trials = append(trials, c.trials...)
	}
	res, err = experiment.Collect(p, trials)
	return res, false, err
}

// gcPercent is the garbage collector's target while trials run: each trial
// leaves a few hundred kilobytes of garbage and keeps nothing, so a larger
// heap between collections costs little memory and saves time.
const gcPercent = 400

// workerCmd runs one share of a plan and writes each trial as a JSON line.
// It leaves SIGINT and SIGTERM to the experiment, which stops it.
func workerCmd(stdin io.Reader, stdout io.Writer) error {
	signal.Ignore(interrupt.Signals...)
	debug.SetGCPercent(gcPercent)
	var job workerJob
	if err := json.NewDecoder(stdin).Decode(&job); err != nil {
		return fmt.Errorf("worker: reading the plan: %w", err)
	}
	out := bufio.NewWriter(stdout)
	n := 0
	err := experiment.RunShare(job.Plan, job.Worker, job.Workers, func(t experiment.Trial) error {
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out.Write(append(b, '\n'))
		if n++; n%16 == 0 {
			return out.Flush() // so that the progress bar moves
		}
		return nil
	})
	if err != nil {
		return err
	}
	return out.Flush()
}

// progress draws "[#####     ] 2400/5000 trials  3100/s  1s left" on a
// terminal, a few times a second; on anything else it draws nothing.
type progress struct {
	out   io.Writer
	total int
	done  atomic.Int64
	start time.Time
	quit  chan struct{}
	wg    sync.WaitGroup
}

func newProgress(stderr io.Writer, total int) *progress {
	p := &progress{out: stderr, total: total, start: time.Now(), quit: make(chan struct{})}
	if f, ok := stderr.(*os.File); !ok || !console.IsTerminal(f) {
		return p
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.quit:
				fmt.Fprint(p.out, "\r\033[K")
				return
			case <-tick.C:
				p.draw()
			}
		}
	}()
	return p
}

func (p *progress) add(n int) { p.done.Add(int64(n)) }

func (p *progress) draw() {
	done := int(p.done.Load())
	const width = 30
	fill := width * done / max(p.total, 1)
	el := time.Since(p.start).Seconds()
	rate := float64(done) / max(el, 1e-9)
	left := "?"
	if rate > 0 {
		left = (time.Duration(float64(p.total-done)/rate*10) * time.Second / 10).String()
	}
	fmt.Fprintf(p.out, "\r[%s%s] %d/%d trials  %.0f/s  %s left\033[K", bytes.Repeat([]byte{'#'}, fill),
		bytes.Repeat([]byte{' '}, width-fill), done, p.total, rate, left)
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
}
