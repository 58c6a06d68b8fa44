package server

import (
	"strings"

	"github.com/coreos/go-semver/semver"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
)

// Downgrade answers Maintenance.Downgrade as etcd v3.6.16 answers it for
// a cluster of v3.6 members (EtcdServer.Downgrade, version.Manager), at a
// member whose cluster version is cv: the version to answer (the cluster
// version, major.minor), or the error a client sees.
//   - validate: the target, major.minor (a patch is dropped; "v3.5" is not
//     a version), must be one minor below the cluster version, and no
//     downgrade may be in progress;
//   - cancel with no downgrade in progress: etcd logs "failed to cancel
//     downgrade" and answers the cluster version all the same;
//   - enable is not simulated (ErrDowngradeNotSimulated, after validate's
//     checks, which etcd makes first): it would have the leader lower the
//     cluster version for members of the older version to join, which the
//     simulation does not have. So no downgrade is ever in progress.
func Downgrade(r *etcdserverpb.DowngradeRequest, cv string) (string, string) {
	switch r.Action {
	case etcdserverpb.DowngradeRequest_CANCEL:
		return ClusterVersion(cv), ""
	case etcdserverpb.DowngradeRequest_VALIDATE, etcdserverpb.DowngradeRequest_ENABLE:
	default:
		return "", "etcdserver: unknown method"
	}
	target, err := semver.NewVersion(r.Version)
	if err != nil {
		if target, err = semver.NewVersion(r.Version + ".0"); err != nil {
			return "", grpcMsg(rpctypes.ErrGRPCWrongDowngradeVersionFormat)
		}
	}
	if cv == "" {
		return "", grpcMsg(rpctypes.ErrGRPCClusterVersionUnavailable)
	}
	c, err := semver.NewVersion(cv)
	if err != nil {
		return "", "raftsim: the cluster version " + cv + " is not a version"
	}
	if target.Major != c.Major || target.Minor != c.Minor-1 {
		return "", grpcMsg(rpctypes.ErrGRPCInvalidDowngradeTargetVersion)
	}
	if r.Action == etcdserverpb.DowngradeRequest_ENABLE {
		return "", ErrDowngradeNotSimulated
	}
	return ClusterVersion(cv), ""
}

// ErrDowngradeNotSimulated answers a downgrade enable.
const ErrDowngradeNotSimulated = "downgrade enable is not simulated: every member runs v3.6 (raftsim's note)"

// ClusterVersion is a cluster version as etcd answers it: major.minor
// (version.Cluster).
func ClusterVersion(v string) string {
	if vs := strings.Split(v, "."); len(vs) > 2 {
		return vs[0] + "." + vs[1]
	}
	return v
}
