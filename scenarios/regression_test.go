package scenarios

// Regression tests from a review, at the scenario level: each asserts what
// SCENARIOS.md promises, and each failed before its fix. Each test's comment
// describes the bug as it was found.

import (
	"strings"
	"testing"
)

func reviewRun(t *testing.T, src string) (*Runner, error) {
	t.Helper()
	s, err := Parse("review.yaml", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	r, err := NewRunner(s, RunOptions{})
	if err != nil {
		t.Fatalf("runner: %v", err)
	}
	_, err = r.Run()
	return r, err
}

// "@follower: an up voter in StateFollower". A member that add_member has
// just created (not in any configuration yet: it has not received the
// snapshot that lists it) is reported as RoleFollower, so @followers and
// @follower1.. include it, and a crash/put/partition aimed at "a follower"
// hits a node that is not in the cluster.
func TestJoinerIsNotAFollower(t *testing.T) {
	r, err := reviewRun(t, `name: joiner
cluster: {members: [n1, n2, n3]}
steps:
  - expect: {leader: any, within: 5s}
  - add_member: {name: n9, learner: true}
  - let: {fs: "@followers"}
`)
	if err != nil {
		t.Fatal(err)
	}
	fs := r.vars["fs"]
	in, _ := r.World().Info("n9")
	t.Logf("@followers = %v; n9 role %s, learner=%v", fs, in.Role, in.Learner)
	for _, n := range fs {
		if n == "n9" {
			t.Fatalf("@followers = %v includes n9, a learner that has not joined yet", fs)
		}
	}
}

// A condition reference that cannot resolve *yet* fails the whole expect at
// once, at its first evaluation, although `within` gives it time: e.g.
// waiting for the first leader's commit index.
func TestExpectWithinWaitsForAReference(t *testing.T) {
	_, err := reviewRun(t, `name: wait-ref
cluster: {members: 3}
steps:
  - expect: {commit: {"@leader": ">=2"}, within: 5s}
`)
	if err != nil {
		t.Fatalf("expect with within: 5s gave up at once: %v", err)
	}
}

// "A reference that resolves to nothing is a failure of that step": an
// empty @followers (a one-member cluster) resolves to nothing, yet the step
// passes silently and crashes nobody.
func TestEmptyFollowersIsAFailure(t *testing.T) {
	_, err := reviewRun(t, `name: empty-followers
cluster: {members: 1}
steps:
  - expect: {leader: any, within: 5s}
  - crash: "@followers"
`)
	if err == nil {
		t.Fatal("crash: @followers in a 1-member cluster resolved to nothing and the step succeeded")
	}
	t.Log(err)
}

// wait: 2562047h47m16s (accepted by the parser: any non-negative
// time.Duration) overflows r.start.Add after 1s, and the wait ends at once
// with no time passed; within/for/after and the sim's stall and client
// timeout durations overflow the same way.
func TestHugeWaitIsRefused(t *testing.T) {
	_, err := Parse("review.yaml", []byte(`name: huge-wait
cluster: {members: 3}
steps:
  - wait: 1s
  - wait: 2562047h47m16s
`))
	if err == nil || !strings.Contains(err.Error(), "review.yaml:5:11") {
		t.Fatalf("a wait of 2562047h47m16s (it wraps virtual time) was not refused at its position: %v", err)
	}
}

// "partition: every member is in exactly one group". With @-references the
// validator cannot check that, and the runner does not either: here two of
// five members are in no group and stay connected to both sides, so the
// "partition" lets the old leader keep a quorum.
func TestPartitionGroupsAreCheckedAtRunTime(t *testing.T) {
	_, err := reviewRun(t, `name: partial
cluster: {members: 5}
steps:
  - expect: {leader: any, within: 5s}
  - partition: [["@leader"], ["@follower1", "@follower2"]]
`)
	if err == nil {
		t.Fatal("a partition that leaves 2 of 5 members in no group ran without complaint")
	}
	t.Log(err)
}
