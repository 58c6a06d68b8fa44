package server

import (
	"strings"

	"github.com/coreos/go-semver/semver"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// Downgrade answers Maintenance.Downgrade as etcd v3.6.16 answers it for
// a cluster of v3.6 members (EtcdServer.Downgrade, version.Manager), at a
// member whose cluster version is cv and whose downgrade in progress has
// the target version inProgress ("": none): the version to answer (the
// cluster version, major.minor), the DowngradeInfoSet to propose first
// (nil: answer at once), or the error a client sees.
//   - validate: the target, major.minor (a patch is dropped; "v3.5" is not
//     a version), must be one minor below the cluster version, and no
//     downgrade may be in progress;
//   - enable: validate's checks, then a DowngradeInfoSet of the target
//     through raft; the leader's version monitor then lowers the cluster
//     version to it (membership.Cluster.WantVersion);
//   - cancel: a DowngradeInfoSet that ends the downgrade; with none in
//     progress etcd logs "failed to cancel downgrade" and answers the
//     cluster version all the same.
func Downgrade(r *etcdserverpb.DowngradeRequest, cv, inProgress string) (string, *membershippb.DowngradeInfoSetRequest, string) {
	switch r.Action {
	case etcdserverpb.DowngradeRequest_CANCEL:
		if inProgress == "" {
			return ClusterVersion(cv), nil, ""
		}
		return ClusterVersion(cv), &membershippb.DowngradeInfoSetRequest{Enabled: false}, ""
	case etcdserverpb.DowngradeRequest_VALIDATE, etcdserverpb.DowngradeRequest_ENABLE:
	default:
		return "", nil, "etcdserver: unknown method"
	}
	target, err := semver.NewVersion(r.Version)
	if err != nil {
		if target, err = semver.NewVersion(r.Version + ".0"); err != nil {
			return "", nil, grpcMsg(rpctypes.ErrGRPCWrongDowngradeVersionFormat)
		}
	}
	if cv == "" {
		return "", nil, grpcMsg(rpctypes.ErrGRPCClusterVersionUnavailable)
	}
	c, err := semver.NewVersion(cv)
	if err != nil {
		return "", nil, "raftsim: the cluster version " + cv + " is not a version"
	}
	if target.Major != c.Major || target.Minor != c.Minor-1 {
		return "", nil, grpcMsg(rpctypes.ErrGRPCInvalidDowngradeTargetVersion)
	}
	if inProgress != "" {
		return "", nil, grpcMsg(rpctypes.ErrGRPCDowngradeInProcess)
	}
	if r.Action == etcdserverpb.DowngradeRequest_ENABLE {
		t := semver.Version{Major: target.Major, Minor: target.Minor}
		return ClusterVersion(cv), &membershippb.DowngradeInfoSetRequest{Enabled: true, Ver: t.String()}, ""
	}
	return ClusterVersion(cv), nil, ""
}

// ClusterVersion is a cluster version as etcd answers it: major.minor
// (version.Cluster).
func ClusterVersion(v string) string {
	if vs := strings.Split(v, "."); len(vs) > 2 {
		return vs[0] + "." + vs[1]
	}
	return v
}

// DescribeDowngrade is a downgrade call as a transcript says it.
func DescribeDowngrade(r *etcdserverpb.DowngradeRequest) string {
	switch {
	case r == nil:
		return "downgrade"
	case r.Action == etcdserverpb.DowngradeRequest_CANCEL:
		return "downgrade cancel"
	case r.Action == etcdserverpb.DowngradeRequest_ENABLE:
		return "downgrade enable " + r.Version
	}
	return "downgrade validate " + r.Version
}
