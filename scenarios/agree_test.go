package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/raftsim/raftsim/sim"
)

// validate and run agree on every configuration: each cluster key at its
// extremes (and just past them) is either refused by the parser, with a
// position, or runs: the world builds, and the run ends without bad input
// found at run time and without a raft assertion (issue 24: max_size_per_msg:
// 0 passed validate and then panicked inside raft).
func TestValidateAndRunAgreeOnExtremes(t *testing.T) {
	values := map[string][]string{
		"members":                       {"0", "1", "2", "99", "100", "-1", "[]"},
		"learners":                      {"[]", "[n2]", "[n1, n2, n3]", "[n9]"},
		"tick":                          {"0s", "999ns", "1us", "1ms", "1000h", "1001h", "-1s"},
		"election_ticks":                {"0", "1", "2", "1000000", "1000001", "-5"},
		"heartbeat_ticks":               {"0", "1", "9", "10", "11", "1000000"},
		"pre_vote":                      {"true", "false"},
		"check_quorum":                  {"true", "false"},
		"read_only":                     {"safe", "lease", "eventual"},
		"proposal_forwarding":           {"true", "false"},
		"max_inflight_msgs":             {"0", "1", "1000000", "1000001"},
		"max_size_per_msg":              {"0", "1", "1KiB", "1MiB", "18446744073709551615", "18446744073709551616", "-1"},
		"snapshot_every":                {"0", "1", "18446744073709551615", "-1"},
		"disk_latency":                  {"0s", "1ns", "1000h", "1001h"},
		"client_latency":                {"0s", "1000h", "1001h"},
		"topology":                      {"stacked", "external", "mesh"},
		"initial_election_tick_advance": {"true", "false"},
		"bootstrap":                     {"etcd", "raft", "paxos"},
		"token":                         {"''", "etcd-cluster", "'x y'"},
	}
	// Some keys only mean something with others.
	with := map[string]string{"read_only": "check_quorum: true, ", "apiservers": "topology: stacked, "}
	values["apiservers"] = []string{"0", "1", "3", "4", "99"}
	values["compaction_interval"] = []string{"0s", "1ms", "1000h"}
	with["compaction_interval"] = "topology: stacked, "
	for key, vs := range values {
		for _, v := range vs {
			for _, extra := range []string{"", with[key]} {
				if extra == "" && with[key] != "" && key != "read_only" {
					continue
				}
				src := fmt.Sprintf("name: agree\ncluster: {members: 3, %s%s: %s}\nsteps:\n  - wait: 50ms\n  - put: {via: n1, key: k, value: v}\n  - wait: 300ms\n", extra, key, v)
				if key == "members" {
					src = fmt.Sprintf("name: agree\ncluster: {members: %s}\nsteps:\n  - wait: 300ms\n", v)
				}
				what := fmt.Sprintf("%s%s: %s", extra, key, v)
				s, err := Parse("x.yaml", []byte(src))
				if err != nil {
					if !strings.Contains(err.Error(), "x.yaml:") {
						t.Errorf("%s: refused without a position: %v", what, err)
					}
					continue
				}
				r, err := NewRunner(s, RunOptions{})
				if err != nil {
					t.Errorf("%s: validate accepts it, and run refuses it: %v", what, err)
					continue
				}
				_, err = r.Run()
				var ee *ExpectError
				var v *sim.Violation
				switch {
				case err == nil, errors.As(err, &ee) && !ee.Step:
				case errors.As(err, &v):
					t.Errorf("%s: validate accepts it, and the run stops on %v", what, v)
				default:
					t.Errorf("%s: validate accepts it, and the run fails with %v", what, err)
				}
			}
		}
	}
}
