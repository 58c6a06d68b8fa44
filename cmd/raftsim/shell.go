package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/raftsim/raftsim/console"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

const shellUsage = `Usage: raftsim shell [FILE|NAME] [--seed N] [--topology stacked|external] [--trace out.jsonl]

An etcdctl-like console on a live simulated cluster: the default sandbox
(etcd-1..5 with a stacked control plane), or the cluster of a scenario file
or built-in lesson (its cluster, network and clients; not its steps).
Virtual time advances while a command waits for its answer. Type help.

In a terminal it has line editing and history; otherwise it reads one
command a line from standard input (raftsim shell < commands.txt).

Flags:
`

// shellCmd runs the console.
func shellCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("shell", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seed := fs.Uint64("seed", 1, "the seed (default: the scenario's, or 1)")
	topology := fs.String("topology", "", "stacked (an apiserver on each member's host, bound to it) or external (apiservers with every member as an endpoint)")
	tracePath := fs.String("trace", "", "write the session's trace (JSON Lines) to this file when it ends")
	heartbeats := fs.Bool("heartbeats", false, "trace on shows heartbeats too")
	fromSnapshot := fs.String("from-snapshot", "", "start the cluster restored from this etcd v3.6 snapshot (etcdctl snapshot save's file), as etcdutl snapshot restore does")
	help := fs.BoolP("help", "h", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return badInput("raftsim shell: %v\n\n%s%s", err, shellUsage, fs.FlagUsages())
	}
	if *help {
		fmt.Fprint(stdout, shellUsage+fs.FlagUsages())
		return nil
	}
	if fs.NArg() > 1 {
		return badInput("raftsim shell: want at most one scenario, got %d\n\n%s%s", fs.NArg(), shellUsage, fs.FlagUsages())
	}
	switch *topology {
	case "", "stacked", "external":
	default:
		return badInput("raftsim shell: --topology: want stacked or external, not %q", *topology)
	}
	w, what, err := newShellWorld(fs, *seed, *topology, *fromSnapshot)
	if err != nil {
		return err
	}

	// Every output is created before the first command; the trace goes to
	// a spool beside it as the session goes, so that the session keeps no
	// more of its history than trace on has yet to print.
	var traceFile *outfile.File
	opts := console.Options{Heartbeats: *heartbeats, ForgetHistory: true}
	var sp *spool
	if *tracePath != "" {
		if traceFile, err = createOutput("shell", "--trace", *tracePath); err != nil {
			return err
		}
		defer traceFile.Close()
		if sp, err = newSpool(*tracePath); err != nil {
			return err
		}
		defer sp.remove()
		opts.Trace = sp
	}
	// SIGINT and SIGTERM stop the command running; at a terminal, Ctrl-C
	// goes on with the session, and anything else ends it, with what it
	// printed and its trace written.
	stop := interrupt.Catch()
	defer stop.Stop()
	opts.Interrupt = stop
	var term *console.Terminal
	inFile, isFile := stdin.(*os.File)
	interactive := isFile && console.IsTerminal(inFile)
	if outFile, ok := file(stdout); !ok || !console.IsTerminal(outFile) {
		interactive = false
	}
	out := bufio.NewWriter(stdout)
	if interactive {
		term = console.NewTerminal(inFile, stdout, stop)
		opts = term.Options(opts)
	} else {
		opts.Out = out
	}
	c := console.New(w, opts)
	runErr := c.Start(what)
	if runErr == nil && stop.Interrupted() {
		runErr = c.Close()
		if runErr == nil {
			runErr = fmt.Errorf("%w by %s at virtual time %s, while the cluster started", console.ErrInterrupted, interrupt.Name(stop.Signal()), w.Now())
		}
	}
	if runErr == nil {
		if interactive {
			runErr = term.Run(c)
		} else {
			runErr = c.RunScript(stdin)
		}
	}
	if errors.Is(runErr, console.ErrInterrupted) {
		fmt.Fprintf(out, "raftsim shell: %v\n", runErr)
	}
	out.Flush()
	if sp != nil {
		if err := sp.writeTo(traceFile, w, scenarios.SessionName); err != nil {
			return fmt.Errorf("shell: writing the trace to %s: %w", *tracePath, err)
		}
		if err := traceFile.Commit(); err != nil {
			return fmt.Errorf("shell: writing the trace to %s: %w", *tracePath, err)
		}
	}
	return shellExit(runErr, stop, w)
}

// newShellWorld builds the shell's world: the sandbox or the cluster of
// the scenario fs names, with the flags' seed, topology and snapshot;
// what says which, for the banner.
func newShellWorld(fs *pflag.FlagSet, seed uint64, topology, fromSnapshot string) (*sim.World, string, error) {
	cfg := sim.SandboxConfig()
	what := "sandbox"
	if fs.NArg() == 1 {
		s, err := scenarios.Load(fs.Arg(0))
		if err != nil {
			return nil, "", badInput("%v", err)
		}
		cfg = s.Config
		what = "cluster of " + fs.Arg(0)
	}
	if fs.Changed("seed") {
		cfg.Seed = seed
	}
	if topology != "" {
		if fs.NArg() == 0 {
			cfg.Clients = nil // the sandbox's apiservers come from the topology
		}
		cfg.Topology = topology
		what += ", " + topology + " topology"
	}
	if fromSnapshot != "" {
		if err := scenarios.RestoreFrom(&cfg, fromSnapshot); err != nil {
			return nil, "", badInput("raftsim shell: --from-snapshot: %v", err)
		}
		// a saved session names the file wherever it is saved
		if abs, err := filepath.Abs(fromSnapshot); err == nil {
			cfg.FromSnapshot = abs
		} else {
			cfg.FromSnapshot = fromSnapshot
		}
		what += ", restored from " + fromSnapshot
	}
	w, err := sim.New(cfg)
	if err != nil {
		return nil, "", badInput("raftsim shell: %v", err)
	}
	return w, what, nil
}

// shellExit is the outcome of a session: a safety violation, an
// interrupted command (exit interrupt.ExitCode), or runErr.
func shellExit(runErr error, stop *interrupt.Catcher, w *sim.World) error {
	var v *sim.Violation
	switch {
	case errors.As(runErr, &v):
		return &exitError{code: exitViolation, err: v}
	case errors.Is(runErr, console.ErrInterrupted):
		return interrupted("shell: interrupted by %s (seed=%d)", interrupt.Name(stop.Signal()), w.Seed())
	}
	return runErr
}

// writeTrace writes the world's whole trace as raftsim run --trace does,
// with the scenario name a saved session gets, so that replaying the saved
// session gives the same bytes. It needs the history kept (serve keeps it
// with --trace); the shell spools its trace as it goes instead.
func writeTrace(w *sim.World, path string) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	bw := bufio.NewWriter(f)
	if err := w.WriteTraceHeader(bw, scenarios.SessionName); err != nil {
		return err
	}
	var line []byte
	for _, e := range w.History() {
		line = w.AppendTraceLine(line[:0], e)
		bw.Write(line)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Commit()
}
