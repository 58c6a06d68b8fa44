package sim

import (
	"testing"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/server"
)

// The client retries on gRPC's Unavailable, as clientv3 does: every error
// of etcd's that rpctypes sends with that code, a broken connection's
// status, and nothing else (a learner's refusal, a deadline, a compaction,
// no space).
func TestUnavailableIsTheGRPCCode(t *testing.T) {
	for _, e := range []error{
		rpctypes.ErrGRPCNoLeader, rpctypes.ErrGRPCNotLeader, rpctypes.ErrGRPCLeaderChanged, rpctypes.ErrGRPCNotCapable,
		rpctypes.ErrGRPCStopped, rpctypes.ErrGRPCTimeout, rpctypes.ErrGRPCTimeoutDueToLeaderFail,
		rpctypes.ErrGRPCTimeoutDueToConnectionLost, rpctypes.ErrGRPCTimeoutWaitAppliedIndex, rpctypes.ErrGRPCUnhealthy,
		rpctypes.ErrGRPCCorrupt, rpctypes.ErrGRPCNotSupportedForLearner, rpctypes.ErrGRPCRequestTooManyRequests,
		rpctypes.ErrGRPCCompacted, rpctypes.ErrGRPCNoSpace, rpctypes.ErrGRPCLeaseNotFound,
	} {
		s := status.Convert(e)
		if got, want := unavailable(s.Message()), s.Code() == codes.Unavailable; got != want {
			t.Errorf("unavailable(%q) = %v, want %v (%v)", s.Message(), got, want, s.Code())
		}
	}
	for err, want := range map[string]bool{
		errConnBroken:               true,
		server.ErrLeaderChanged:     true,
		server.ErrNotForLearner:     false,
		"context deadline exceeded": false,
		"some other error":          false,
	} {
		if got := unavailable(err); got != want {
			t.Errorf("unavailable(%q) = %v, want %v", err, got, want)
		}
	}
}
