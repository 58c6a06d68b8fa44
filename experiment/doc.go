// Package experiment runs trials on the simulator and summarizes them: the
// Raft paper's Figure 16 (the time a cluster goes without a leader after its
// leader crashes, for several election-timeout ranges), and how often votes
// split as the cluster grows and the network slows (Ongaro's thesis,
// chapter 9).
//
// A trial does not build and elect a cluster of its own. Settle builds one
// cluster, sets up its logs as the paper did and waits for the leader's
// heartbeat round; each trial then forks that world (sim.World.Fork), with
// the leader down and the survivors restarted from their disks with the
// trial's election timeout and seed. A trial's result depends only on the
// experiment's seed, its job and its number, never on which process ran
// it or in what order, so trials can be spread over worker processes (the
// crypto/rand override that makes raft deterministic is process-wide, so
// two simulations cannot share a process at once) and merged in trial
// order into the same bytes.
package experiment
