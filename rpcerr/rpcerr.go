// Package rpcerr gives an error of etcd's server, in the words the
// simulation answers with ("etcdserver: no leader"), the gRPC status etcd
// v3.6.16 sends it with (codes.Unavailable). It is etcd's togRPCError
// (server/etcdserver/api/v3rpc/util.go) over the errors of
// go.etcd.io/etcd/api/v3/v3rpc/rpctypes, read from those errors
// themselves, so that the console's clientv3 log lines and the wire's
// answers agree with each other and with etcd.
package rpcerr

import (
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// sent are the errors etcd's server answers with, as rpctypes defines
// them (the gRPC errors its handlers return and togRPCError maps to).
// rpctypes.ErrMemberNotEnoughStarted is no gRPC status: gRPC sends it as
// Unknown, and etcdctl prints it so.
var sent = []error{
	rpctypes.ErrGRPCEmptyKey, rpctypes.ErrGRPCKeyNotFound, rpctypes.ErrGRPCValueProvided, rpctypes.ErrGRPCLeaseProvided,
	rpctypes.ErrGRPCTooManyOps, rpctypes.ErrGRPCDuplicateKey, rpctypes.ErrGRPCInvalidSortOption,
	rpctypes.ErrGRPCCompacted, rpctypes.ErrGRPCFutureRev, rpctypes.ErrGRPCNoSpace,
	rpctypes.ErrGRPCLeaseNotFound, rpctypes.ErrGRPCLeaseExist, rpctypes.ErrGRPCLeaseTTLTooLarge,
	rpctypes.ErrGRPCWatchCanceled,
	rpctypes.ErrGRPCMemberExist, rpctypes.ErrGRPCPeerURLExist, rpctypes.ErrMemberNotEnoughStarted,
	rpctypes.ErrGRPCMemberBadURLs, rpctypes.ErrGRPCMemberNotFound, rpctypes.ErrGRPCMemberNotLearner,
	rpctypes.ErrGRPCLearnerNotReady, rpctypes.ErrGRPCTooManyLearners, rpctypes.ErrGRPCClusterIDMismatch,
	rpctypes.ErrGRPCRequestTooLarge, rpctypes.ErrGRPCRequestTooManyRequests,
	rpctypes.ErrGRPCNoLeader, rpctypes.ErrGRPCNotLeader, rpctypes.ErrGRPCLeaderChanged, rpctypes.ErrGRPCNotCapable,
	rpctypes.ErrGRPCStopped, rpctypes.ErrGRPCTimeout, rpctypes.ErrGRPCTimeoutDueToLeaderFail,
	rpctypes.ErrGRPCTimeoutDueToConnectionLost, rpctypes.ErrGRPCTimeoutWaitAppliedIndex, rpctypes.ErrGRPCUnhealthy,
	rpctypes.ErrGRPCCorrupt, rpctypes.ErrGRPCNotSupportedForLearner, rpctypes.ErrGRPCBadLeaderTransferee,
	rpctypes.ErrGRPCClusterVersionUnavailable,
	// The auth store's (server/auth.go).
	rpctypes.ErrGRPCRootUserNotExist, rpctypes.ErrGRPCRootRoleNotExist, rpctypes.ErrGRPCUserAlreadyExist,
	rpctypes.ErrGRPCUserEmpty, rpctypes.ErrGRPCUserNotFound, rpctypes.ErrGRPCRoleAlreadyExist, rpctypes.ErrGRPCRoleNotFound,
	rpctypes.ErrGRPCRoleEmpty, rpctypes.ErrGRPCAuthFailed, rpctypes.ErrGRPCPermissionNotGiven, rpctypes.ErrGRPCPermissionDenied,
	rpctypes.ErrGRPCRoleNotGranted, rpctypes.ErrGRPCPermissionNotGranted, rpctypes.ErrGRPCAuthNotEnabled,
	rpctypes.ErrGRPCInvalidAuthToken, rpctypes.ErrGRPCInvalidAuthMgmt, rpctypes.ErrGRPCAuthOldRevision,
	// Downgrade's.
	rpctypes.ErrGRPCWrongDowngradeVersionFormat, rpctypes.ErrGRPCInvalidDowngradeTargetVersion,
	rpctypes.ErrGRPCDowngradeInProcess, rpctypes.ErrGRPCNoInflightDowngrade,
}

var byMessage = func() map[string]*status.Status {
	m := map[string]*status.Status{}
	for _, err := range sent {
		s := status.Convert(err)
		m[s.Message()] = s
	}
	return m
}()

// Status returns the status etcd sends msg with:
//   - the client's own context errors as gRPC words them (DeadlineExceeded,
//     Canceled), as togRPCError lets gRPC convert them;
//   - a message that is a gRPC status already ("rpc error: code = ...
//     desc = ..."), as it says;
//   - one of etcd's errors with its rpctypes status;
//   - anything else as codes.Unknown, as togRPCError sends it.
func Status(msg string) *status.Status {
	switch msg {
	case "context deadline exceeded":
		return status.New(codes.DeadlineExceeded, msg)
	case "context canceled":
		return status.New(codes.Canceled, msg)
	}
	if rest, ok := strings.CutPrefix(msg, "rpc error: code = "); ok {
		name, desc, _ := strings.Cut(rest, " desc = ")
		for c := codes.OK; c <= codes.Unauthenticated; c++ {
			if c.String() == name {
				return status.New(c, desc)
			}
		}
	}
	if s, ok := byMessage[msg]; ok {
		return s
	}
	return status.New(codes.Unknown, msg)
}

// Error is Status(msg) as an error, the way a gRPC handler returns it.
func Error(msg string) error { return Status(msg).Err() }
