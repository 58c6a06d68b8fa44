// Package scenarios owns the scenario file format: it turns a YAML lesson
// into a typed, validated *Scenario, or into an ErrorList that says, with a
// file:line:col for every mistake, what was found and what was wanted.
//
// Parsing is strict and static. Unknown keys, wrong types, bad durations,
// ratios, latencies and sizes, names that are not members, variables used
// before their let, duplicate or undefined labels, partitions that do not
// cover the cluster and time that goes backwards are all reported together,
// sorted by position, before anything runs. What can only be known while the
// simulation runs (what @leader resolves to, whether an operation succeeds)
// is left to the driver, which executes a Scenario against a sim.World and
// uses the positions kept in the Scenario to report runtime failures.
//
// Parse never panics and never iterates a map to produce output, so the same
// file always gives the same Scenario and the same errors.
//
// The format is documented for users in docs/scenarios.md, which extends
// scenario format v1 and never contradicts it.
package scenarios
