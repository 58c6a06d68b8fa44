package sim

import (
	"errors"
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
)

// TestHashKVLearnerRefusalIsAValue: a learner refuses HashKV with etcd's
// error as a value whose code is FailedPrecondition (the console prints
// that code from the value, not from the words), and with etcd's words.
func TestHashKVLearnerRefusalIsAValue(t *testing.T) {
	w := reviewWorld(t, 4, func(c *Config) { c.Learners = []string{"n4"} })
	if err := w.Advance(2e9); err != nil {
		t.Fatal(err)
	}
	_, _, err := w.HashKV("n4", 0)
	var ee rpctypes.EtcdError
	if !errors.As(err, &ee) || ee.Code() != codes.FailedPrecondition {
		t.Fatalf("learner's HashKV: %v (%T), want an rpctypes.EtcdError with FailedPrecondition", err, err)
	}
	if got, want := err.Error(), "etcdserver: rpc not supported for learner"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
}
