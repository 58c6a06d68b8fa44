// Command raftsim is the Raft simulator's command line. It runs everything
// headless (run, validate, lessons, shell) and links no ebiten, so it works
// on a machine with no display; for the window (no arguments, or play) it
// starts the sibling binary raftsim-gui.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/raftsim/raftsim/interrupt"
)

// Exit codes, as SCENARIOS.md defines them.
const (
	exitOK        = 0
	exitExpect    = 1 // an expectation failed
	exitBadInput  = 2 // bad scenario or flags
	exitViolation = 3 // a safety invariant broke
	// exitInterrupted: SIGINT or SIGTERM stopped a long command, which
	// flushed what it had and said so (package interrupt).
	exitInterrupted = interrupt.ExitCode
)

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return &exitError{code: exitBadInput, err: fmt.Errorf(format, args...)}
}

// interrupted is the error of a command that a signal stopped: its
// message is the last line on standard error, and the exit code is 130.
func interrupted(format string, args ...any) error {
	return &exitError{code: exitInterrupted, err: fmt.Errorf(format, args...)}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `raftsim: a deterministic simulator of real etcd raft, for teaching and experiments.

Usage:
  raftsim [GUI FLAGS]          open the window on the default sandbox
  raftsim play FILE|NAME       open the window playing a scenario or a lesson
  raftsim run FILE|NAME        run a scenario headless and print its transcript
  raftsim validate FILE...     parse and check scenarios
  raftsim lessons              list the built-in lessons
  raftsim shell [FILE|NAME]    an etcdctl-like console on a simulated cluster
  raftsim serve [FILE|NAME]    etcd's gRPC API on loopback for the real etcdctl, clientv3, kube-apiserver
  raftsim experiment NAME      many trials, summarized (the Raft paper's Figure 16)
  raftsim export FILE|NAME     a run as a space-time diagram, porcupine page, ShiViz log or frames
  raftsim swarm                many seeded runs with random faults, every checker on; failures shrunk
  raftsim serve-web            serve the web page (make web builds it) on loopback
  raftsim link FILE|NAME       a link that opens a scenario in the web page

Run 'raftsim COMMAND --help' for a command's flags.
`

// commands maps each subcommand to its implementation.
var commands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) error{
	"run":        runCmd,
	"validate":   validateCmd,
	"lessons":    lessonsCmd,
	"shell":      shellCmd,
	"serve":      serveCmd,
	"play":       playCmd,
	"experiment": experimentCmd,
	"export":     exportCmd,
	"swarm":      swarmCmd,
	"serve-web":  serveWebCmd,
	"link":       linkCmd,
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	limitMemory()
	out := &outputWriter{w: stdout}
	return checkOutput(runCommand(args, stdin, out, stderr), out, stderr)
}

func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return exitCode(sandboxCmd(nil, stdout, stderr), stderr)
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if strings.HasPrefix(args[0], "-") {
		// Flags alone are the window's, on the sandbox.
		return exitCode(sandboxCmd(args, stdout, stderr), stderr)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "raftsim: unknown command %q\n\n%s", args[0], usage)
		return exitBadInput
	}
	return exitCode(cmd(args[1:], stdin, stdout, stderr), stderr)
}

func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, ee.err)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "raftsim:", err)
	return exitBadInput
}
