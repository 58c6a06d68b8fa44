// Package interrupt is how raftsim's long commands (run, shell, swarm,
// experiment, export, serve) stop when asked to: SIGINT (Ctrl-C) and
// SIGTERM become a flag that the command polls at its safe points, between
// steps of the simulation, never inside one. The command then flushes what
// it has (transcript, trace, results, reproducers), prints a summary that
// says it was interrupted, and exits with ExitCode.
//
// Signals never reach a simulation: the world stays single-threaded and
// deterministic, and only when it is asked to stop depends on the wall
// clock. A second signal, a second or more after the first while the
// command is still stopping, ends the process at once, with the default
// action of that signal, for a command that does not reach a safe point
// soon enough; one sooner is taken as the same request (timeout(1), and a
// kill of a process group, deliver a signal twice).
package interrupt
