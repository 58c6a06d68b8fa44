// Package swarm tests the simulator by swarm testing: each seed becomes a
// scenario with its own fault profile, fault schedule and client workload,
// drawn from the seed alone (as TigerBeetle's VOPR draws its swarm options),
// and the scenario runs with every checker on: the five safety invariants
// online, liveness after a final heal, and linearizability at the end.
//
// A seed's scenario is the same AST the YAML parser builds
// (scenarios.Scenario), so a failure is shrunk by editing the scenario (delta
// debugging over its fault schedule and workload) and written out by the
// scenario writer as a file that `raftsim run` and `raftsim play` replay.
//
// Everything here is a pure function of the seed and the options: a seed's
// Result is the same in any process, on any machine, in any order. Running
// many seeds at once is the job of package swarm/campaign, which starts
// worker processes (the simulator's crypto/rand override is process-wide,
// so simulations in one process run one at a time).
package swarm
