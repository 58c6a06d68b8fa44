package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/raftsim/raftsim/netmodel"
)

// The limits of a scenario. Each is checked when the file is parsed and
// reported with a position, so that no input can make a run panic, hang or
// exhaust memory; docs/scenarios.md lists them. The console checks what it
// shares with scenarios against the same limits, with the same messages.
const (
	// MaxFileBytes bounds a scenario file. Parsing costs about a hundred
	// times the file's size in memory, and a long workload is one load:
	// step, not a step per request.
	MaxFileBytes = 1 << 20
	// MaxSteps bounds the steps of a scenario.
	MaxSteps = 10_000
	// MaxDuration bounds every duration: waits, timeouts, latencies, ticks.
	MaxDuration = 1000 * time.Hour
	// MaxRunTime bounds the virtual time a scenario (or a console session)
	// may take in all: the sum of its waits, afters, withins and fors, and
	// any at. An idle three-member cluster ran 999h in 17 minutes on a
	// loaded machine (the Limits table of docs/scenarios.md).
	MaxRunTime = 1000 * time.Hour
	// MinTick is the shortest tick: the network draws latencies in
	// microseconds.
	MinTick = time.Microsecond
	// MaxClients bounds the clients a scenario lists.
	MaxClients = 1000
	// MaxMembers bounds a cluster's members.
	MaxMembers = maxMembers
)

// durationTooLong is the message for a duration over MaxDuration.
func durationTooLong(what, d string) string {
	return fmt.Sprintf("%s: %s is more than 1000h, the longest duration raftsim accepts", what, d)
}

// ParseDuration reads a non-negative duration that is at most MaxDuration,
// as a scenario does; what names it in errors ("wait", "--for").
func ParseDuration(s, what string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: bad duration %q: want a number with a unit, like 500ms, 2s or 1m30s", what, s)
	case d < 0:
		return 0, fmt.Errorf("%s: negative duration %s: time only goes forward", what, s)
	case d > MaxDuration:
		return 0, fmt.Errorf("%s", durationTooLong(what, s))
	}
	return d, nil
}

// ParseLatency reads a latency ("10ms" or "5ms-15ms") whose bounds are at
// most MaxDuration.
func ParseLatency(s, what string) (netmodel.Latency, error) {
	l, err := netmodel.ParseLatency(s)
	if err != nil {
		return l, fmt.Errorf("%s: %v", what, err)
	}
	if l.Max > MaxDuration || l.Min > MaxDuration {
		return netmodel.Latency{}, fmt.Errorf("%s", durationTooLong(what, s))
	}
	return l, nil
}

// PastRunTime is the error for time that would run past MaxRunTime: what
// names the step or command, end is when it could end.
func PastRunTime(what string, end time.Duration) error {
	return fmt.Errorf("%s: this could end at %s of virtual time, past 1000h, the most a run may take", what, fmtHours(end))
}

// fmtHours formats a long duration in hours, as 1000h reads better than
// 1000h0m0s; a duration that saturated reads as "more than 2562047h".
func fmtHours(d time.Duration) string {
	if d >= maxSum {
		return "more than 2562047h"
	}
	return strings.TrimSuffix(strings.TrimSuffix(d.String(), "0s"), "0m")
}

// maxSum is where sums of durations saturate.
const maxSum = time.Duration(1<<63 - 1)

// addDurations returns a + b, saturating at maxSum.
func addDurations(a, b time.Duration) time.Duration {
	if b > 0 && a > maxSum-b {
		return maxSum
	}
	return a + b
}

// CheckMemberName refuses a name a member may not have, with the words a
// scenario gets: the shell's member add checks with it too. what names
// where the name was given ("add_member name").
func CheckMemberName(what, name string) error {
	switch {
	case !nameRE.MatchString(name):
		return fmt.Errorf("%s: bad name %q: want lower-case letters, digits and dashes, like etcd-1", what, name)
	case name == "none" || name == "any" || name == "all":
		return fmt.Errorf("member name %q is reserved (leader: none/any, heal: all); choose another", name)
	}
	return nil
}
