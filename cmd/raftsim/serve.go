package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/interrupt"
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
	// The files the session ends in are checked before serving: a session
	// is not served only to be lost at exit.
	for _, f := range []struct{ flag, path string }{{"--save", *save}, {"--trace", *tracePath}} {
		if f.path == "" {
			continue
		}
		if err := checkWritable(f.path); err != nil {
			return badInput("raftsim serve: %s: %v", f.flag, err)
		}
	}
	cfg := sim.SandboxConfig()
	what := "sandbox"
	var scenario *scenarios.Scenario
	if fs.NArg() == 1 {
		s, err := scenarios.Load(fs.Arg(0))
		if err != nil {
			return badInput("%v", err)
		}
		cfg, what, scenario = s.Config, "cluster of "+fs.Arg(0), s
	}
	if fs.Changed("seed") {
		cfg.Seed = *seed
	}
	plan, err := wire.PlanEndpoints(&cfg, *port, *tlsDir)
	if ue := (*wire.ClientURLError)(nil); errors.As(err, &ue) && scenario != nil {
		if pos, ok := scenario.ConfigPos["cluster.client_urls."+ue.Member]; ok {
			return badInput("raftsim serve: %s: %v", pos, err)
		}
	}
	if err != nil {
		return badInput("raftsim serve: %v", err)
	}
	w, err := sim.New(cfg)
	if err != nil {
		return badInput("raftsim serve: %v", err)
	}
	// The banner, and the cluster started as the shell starts it.
	if err := console.New(w, console.Options{Out: stdout, Program: "raftsim serve"}).Start(what); err != nil {
		return err
	}
	front := wire.NewFront(1024)
	srv, err := wire.Listen(front, plan.Endpoints)
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("raftsim serve: %w (another etcd there? --port picks other ports)", err)}
	}
	defer srv.Stop()
	plan.Describe(stdout)
	fmt.Fprintf(stdout, "time runs at %gx the wall clock; type console verbs (help), Ctrl-C saves the session in %s and exits\n", *rate, *save)

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
	runErr := wire.Loop(w, front, srv, wire.LoopOptions{Rate: *rate, Console: c, Lines: lines, Stop: sig.Done()})
	if errors.Is(runErr, console.ErrQuit) {
		runErr = nil
	}
	srv.Stop()
	if err := c.Close(); err != nil && runErr == nil {
		runErr = err
	}
	// The trace is written even when the session cannot be, and an
	// interrupted serve exits as interrupted commands do either way.
	saveErr := saveSession(w, *save, stdout)
	if *tracePath != "" {
		if err := writeTrace(w, *tracePath); err != nil && saveErr == nil {
			saveErr = err
		}
	}
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
		return &exitError{code: interrupt.ExitCode, err: fmt.Errorf("raftsim serve: %v at %s; the session is saved in %s", sig.Err(), w.Now(), *save)}
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

// saveSession writes the world's command log as a scenario up to now.
func saveSession(w *sim.World, path string, out io.Writer) error {
	data, err := scenarios.MarshalWith(scenarios.MarshalOptions{End: w.Now()}, w.Config(), w.Commands())
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(out, "saved %d commands up to %s in %s; replay with: raftsim run %s\n", len(w.Commands()), w.Now(), path, path)
	return nil
}
