package sim

import "github.com/raftsim/raftsim/server"

// outcomeUnknown reports whether the check cannot tell whether op took
// effect: it timed out, is still pending, or was canceled; or it is a
// write answered with NOSPACE, which a member may have applied all the
// same (etcd's apply-time quota check, server.ApplyQuota), where the
// client cannot tell it from one the gRPC check refused.
func outcomeUnknown(op *Op) bool {
	return op.Status == OpTimeout || op.Status == OpPending || op.Canceled ||
		op.Status == OpError && op.Err == server.ErrNoSpace && op.Kind.IsWrite()
}
