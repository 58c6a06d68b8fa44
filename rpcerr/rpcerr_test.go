package rpcerr

import (
	"testing"

	"google.golang.org/grpc/codes"
)

func TestStatus(t *testing.T) {
	for _, c := range []struct {
		msg  string
		code codes.Code
		desc string
	}{
		{"etcdserver: no leader", codes.Unavailable, "etcdserver: no leader"},
		{"etcdserver: request timed out, possibly due to previous leader failure", codes.Unavailable, ""},
		{"etcdserver: mvcc: required revision has been compacted", codes.OutOfRange, ""},
		{"etcdserver: requested lease not found", codes.NotFound, ""},
		{"etcdserver: too many learner members in cluster", codes.FailedPrecondition, ""},
		{"etcdserver: key not found", codes.InvalidArgument, ""},
		// A client error type, not a gRPC status: gRPC sends it as Unknown.
		{"etcdserver: re-configuration failed due to not enough started members", codes.Unknown, ""},
		{"context deadline exceeded", codes.DeadlineExceeded, ""},
		{"context canceled", codes.Canceled, ""},
		{"rpc error: code = Unavailable desc = connection refused: m1 is down", codes.Unavailable, "connection refused: m1 is down"},
		{"something raftsim says", codes.Unknown, ""},
	} {
		s := Status(c.msg)
		desc := c.desc
		if desc == "" {
			desc = c.msg
		}
		if s.Code() != c.code || s.Message() != desc {
			t.Errorf("Status(%q) = %v %q, want %v %q", c.msg, s.Code(), s.Message(), c.code, desc)
		}
	}
}
