package wire

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/rpcerr"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// downgrade answers Maintenance.Downgrade at the member from its cluster
// version, as server.Downgrade decides (enable is not simulated:
// Unimplemented).
func downgrade(w *sim.World, member string, r *pb.DowngradeRequest) (any, error) {
	v, why := server.Downgrade(r, w.ClusterVersion(member))
	switch why {
	case "":
		return &pb.DowngradeResponse{Header: w.Header(member, true), Version: v}, nil
	case server.ErrDowngradeNotSimulated:
		return nil, status.Error(codes.Unimplemented, why)
	}
	return nil, rpcerr.Error(why)
}
