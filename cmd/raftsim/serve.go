package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/wire"
)

const serveUsage = `Usage: raftsim serve [FILE|NAME] [--rate R] [--tls DIR] [--port P] [--save FILE] [--window]

etcd's v3 API (gRPC, as etcd v3.6.16 serves it) in front of each member of
a simulated cluster, on loopback: the real etcdctl, a clientv3 program or
kube-apiserver can talk to it. The cluster is the default sandbox or that
of a scenario file or lesson (not its steps). Virtual time follows the
wall clock at --rate. Each request from outside enters the simulation at
the virtual instant it arrives, and is logged; on exit (Ctrl-C, SIGTERM,
or exit typed at the console) the session is saved as a scenario that
'raftsim run' replays headless, with no network, to the same run.

Standard input is the console of 'raftsim shell' on the same cluster:
crash, stall, partition, heal, status, trace on, save, and etcdctl verbs.

Flags:
`

// serveCmd serves a simulated cluster on etcd's wire.
func serveCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seed := fs.Uint64("seed", 1, "the seed (default: the scenario's, or 1)")
	rate := fs.Float64("rate", 1, "virtual time per wall time: 1 is real time (real clients' deadlines are wall time)")
	tlsDir := fs.String("tls", "", "write (or reuse) kubeadm's etcd certificates in DIR and require client certificates")
	port := fs.Int("port", wire.DefaultPort, "the first member's port (the next members take the next ports) unless the scenario gives loopback client URLs")
	save := fs.String("save", "raftsim-serve.yaml", "where the session is saved on exit")
	tracePath := fs.String("trace", "", "also write the session's trace (JSON Lines) to this file on exit")
	window := fs.Bool("window", false, "draw the cluster live in the window (raftsim-gui), every external client as a client box")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return badInput("raftsim serve: %v\n\n%s%s", err, serveUsage, fs.FlagUsages())
	}
	if *help {
		fmt.Fprint(stdout, serveUsage+fs.FlagUsages())
		return nil
	}
	if fs.NArg() > 1 {
		return badInput("raftsim serve: want at most one scenario, got %d", fs.NArg())
	}
	if !(*rate >= 0.001 && *rate <= 1000) {
		return badInput("raftsim serve: --rate: want a rate between 0.001 and 1000, not %g", *rate)
	}
	if *port < 1 || *port > 65535 {
		return badInput("raftsim serve: --port: want a port between 1 and 65535, not %d", *port)
	}
	if *window {
		if *tracePath != "" {
			return badInput("raftsim serve: --trace is for the headless serve; with --window, s saves the session, which raftsim run --trace replays")
		}
		return startGUIPassingSignals(append([]string{"serve"}, args...), stdin, stdout, stderr)
	}
	if err := checkSessionFiles(*save, *tracePath); err != nil {
		return err
	}
	w, what, plan, err := newServedWorld(fs, *seed, *port, *tlsDir)
	if err != nil {
		return err
	}
	// The session is written as it goes, one command at a time, into
	// FILE.part, renamed to FILE at the end: a serve that is killed leaves
	// FILE.part, which replays up to its last command.
	sess, err := startSession(w, *save)
	if err != nil {
		return badInput("raftsim serve: --save: %v", err)
	}
	defer sess.close()
	// The banner, and the cluster started as the shell starts it.
	if err := console.New(w, console.Options{Out: stdout, Program: "raftsim serve"}).Start(what); err != nil {
		return err
	}
	front := wire.NewFront(1024)
	srv, err := wire.Listen(front, plan.Endpoints)
	if err != nil {
		sess.discard()
		return &exitError{code: exitBadInput, err: fmt.Errorf("raftsim serve: %w (another etcd there? --port picks other ports)", err)}
	}
	defer srv.Stop()
	plan.Describe(stdout)
	fmt.Fprintf(stdout, "time runs at %gx the wall clock; type console verbs (help), Ctrl-C saves the session in %s and exits\n", *rate, *save)
	fmt.Fprintf(stdout, "the session is written as it goes to %s, renamed to %s at exit (if serve is killed, replay %s)\n", sess.f.PartName(), *save, sess.f.PartName())

	// SIGINT and SIGTERM end the session: it is saved, and the command
	// exits as every interrupted command does (interrupt.ExitCode).
	sig := interrupt.Catch()
	defer sig.Stop()
	lines := make(chan string)
	go readLines(stdin, lines)
	// The console's wait and tick let virtual time pass themselves (in
	// Async mode with no Advance): a signal stops them between instants,
	// and then the loop, which sees it too.
	c := console.New(w, console.Options{Out: stdout, Mode: console.Async, ForgetHistory: *tracePath == "", Interrupt: sig})
	runErr := wire.Loop(w, front, srv, wire.LoopOptions{Rate: *rate, Console: c, Lines: lines, Stop: sig.Done(), Log: sess.log})
	if errors.Is(runErr, console.ErrQuit) {
		runErr = nil
	}
	srv.Stop()
	if err := c.Close(); err != nil && runErr == nil {
		runErr = err
	}
	// The trace is written even when the session cannot be, and an
	// interrupted serve exits as interrupted commands do either way.
	saveErr := sess.finish(w, stdout)
	if *tracePath != "" {
		if err := writeTrace(w, *tracePath); err != nil && saveErr == nil {
			saveErr = err
		}
	}
	return serveExit(runErr, saveErr, sig, w, *save)
}

// checkSessionFiles checks the files the session ends in before
// serving: a session is not served only to be lost at exit.
func checkSessionFiles(save, tracePath string) error {
	for _, f := range []struct{ flag, path string }{{"--save", save}, {"--trace", tracePath}} {
		if f.path == "" {
			continue
		}
		if err := outfile.Check(f.path); err != nil {
			return badInput("raftsim serve: %s: %v", f.flag, err)
		}
		if err := checkWritable(f.path); err != nil {
			return badInput("raftsim serve: %s: %v", f.flag, err)
		}
	}
	return nil
}

// newServedWorld builds the world serve serves, the sandbox or the
// cluster of the scenario fs names (what says which), and plans its
// endpoints from port; a client URL that cannot be served is refused at
// its position in the scenario.
func newServedWorld(fs *pflag.FlagSet, seed uint64, port int, tlsDir string) (*sim.World, string, *wire.Plan, error) {
	cfg := sim.SandboxConfig()
	what := "sandbox"
	var scenario *scenarios.Scenario
	if fs.NArg() == 1 {
		s, err := scenarios.Load(fs.Arg(0))
		if err != nil {
			return nil, "", nil, badInput("%v", err)
		}
		cfg, what, scenario = s.Config, "cluster of "+fs.Arg(0), s
	}
	if fs.Changed("seed") {
		cfg.Seed = seed
	}
	plan, err := wire.PlanEndpoints(&cfg, port, tlsDir)
	if ue := (*wire.ClientURLError)(nil); errors.As(err, &ue) && scenario != nil {
		if pos, ok := scenario.ConfigPos["cluster.client_urls."+ue.Member]; ok {
			return nil, "", nil, badInput("raftsim serve: %s: %v", pos, err)
		}
	}
	if err != nil {
		return nil, "", nil, badInput("raftsim serve: %v", err)
	}
	w, err := sim.New(cfg)
	if err != nil {
		return nil, "", nil, badInput("raftsim serve: %v", err)
	}
	return w, what, plan, nil
}

// serveExit is the outcome of a session: a session that cannot be
// saved (interrupted or not), a safety violation, an interrupted serve
// (exit interrupt.ExitCode), or runErr.
func serveExit(runErr, saveErr error, sig *interrupt.Catcher, w *sim.World, save string) error {
	if saveErr != nil {
		if sig.Interrupted() {
			return &exitError{code: interrupt.ExitCode, err: fmt.Errorf("raftsim serve: %v at %s; %w", sig.Err(), w.Now(), saveErr)}
		}
		return saveErr
	}
	var v *sim.Violation
	if errors.As(runErr, &v) {
		return &exitError{code: exitViolation, err: v}
	}
	if runErr == nil && sig.Interrupted() {
		return &exitError{code: interrupt.ExitCode, err: fmt.Errorf("raftsim serve: %v at %s; the session is saved in %s", sig.Err(), w.Now(), save)}
	}
	return runErr
}

// checkWritable reports why path cannot take the session's file: it is
// not a regular file, or it (or, when absent, its directory) cannot be
// written. It changes nothing on disk.
func checkWritable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		f, err := os.CreateTemp(dir, ".raftsim-check-*")
		if err != nil {
			return fmt.Errorf("cannot write in %s: %w", dir, err)
		}
		name := f.Name()
		f.Close()
		return os.Remove(name)
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// readLines sends the lines of r, then closes lines.
func readLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), console.MaxLineBytes)
	for sc.Scan() {
		lines <- sc.Text()
	}
}

// session is serve's session file, written as the session goes.
type session struct {
	f        *outfile.File
	sw       *scenarios.SessionWriter
	lastSync time.Time
	err      error
}

// syncEvery bounds how long a logged command may wait for fsync: every
// command is written (and so survives a SIGKILL) before the world runs on,
// and is on the disk (it survives a power cut) within this much wall time.
const syncEvery = 100 * time.Millisecond

// startSession creates path's part file and writes the session's head.
func startSession(w *sim.World, path string) (*session, error) {
	f, err := outfile.CreatePart(path, 0o644)
	if err != nil {
		return nil, err
	}
	sw, err := scenarios.NewSessionWriter(f, scenarios.MarshalOptions{}, w.Config())
	if err == nil {
		err = sw.Flush()
	}
	if err != nil {
		s := &session{f: f}
		s.discard()
		return nil, err
	}
	return &session{f: f, sw: sw, lastSync: time.Now()}, nil
}

// log writes the commands logged since the last call (wire.LoopOptions.Log).
func (s *session) log(w *sim.World) error {
	if s.err != nil {
		return s.err
	}
	cmds := w.CommandsFrom(s.sw.Count())
	if len(cmds) == 0 {
		return nil
	}
	for _, c := range cmds {
		if s.err = s.sw.Add(c); s.err != nil {
			break
		}
	}
	if s.err == nil {
		s.err = s.sw.Flush()
	}
	if s.err == nil && time.Since(s.lastSync) >= syncEvery {
		s.err, s.lastSync = s.f.Sync(), time.Now()
	}
	if s.err != nil {
		s.err = fmt.Errorf("raftsim serve: writing the session to %s: %w", s.f.PartName(), outfile.Reason(s.err))
	}
	return s.err
}

// finish writes what is left, the final wait up to now, and renames the
// part file to the session's name.
func (s *session) finish(w *sim.World, out io.Writer) error {
	if err := s.log(w); err != nil {
		s.close()
		return err
	}
	err := s.sw.End(w.Now())
	if err == nil {
		err = s.sw.Flush()
	}
	if err == nil {
		err = s.f.Sync()
	}
	if err == nil {
		err = s.f.Commit()
	}
	if err != nil {
		s.close()
		return fmt.Errorf("raftsim serve: saving the session: %w (what was written is in %s)", err, s.f.PartName())
	}
	name := s.f.Name()
	fmt.Fprintf(out, "saved %d commands up to %s in %s; replay with: raftsim run %s\n", s.sw.Count(), w.Now(), name, name)
	return nil
}

// close closes the part file, if it is still open, and leaves it.
func (s *session) close() { s.f.Abort() }

// discard removes the part file of a session that never served: serve
// created it (outfile.CreatePart creates it new) and it holds only a head.
func (s *session) discard() {
	s.f.Abort()
	os.Remove(s.f.PartName())
}
