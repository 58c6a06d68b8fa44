package wire

import (
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/rpcerr"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// authCommand turns one of the Auth service's calls into the command that
// proposes it, as etcd v3.6's EtcdServer does (v3_server.go): every call
// goes through raft as an InternalRaftRequest. A user add or a password
// change is hashed here, at the member that received it, with bcrypt on
// a salt from the world's seeded entropy, and only the hash is proposed
// (and logged); an Authenticate has its password checked here against
// the member's auth store (CheckPassword) and proposes the user's name
// and a token prefix drawn from the same entropy. ok is false for a call
// that is not the Auth service's.
func authCommand(w *sim.World, member string, msg any) (cmd sim.Command, fin finisher, err error, ok bool) {
	var r pb.InternalRaftRequest
	switch x := msg.(type) {
	case *pb.AuthEnableRequest:
		r.AuthEnable = x
	case *pb.AuthDisableRequest:
		r.AuthDisable = x
	case *pb.AuthStatusRequest:
		r.AuthStatus = x
	case *pb.AuthenticateRequest:
		if why := w.CheckPassword(member, x.Name, x.Password); why != "" {
			return sim.Command{}, nil, rpcerr.Error(why), true
		}
		r.Authenticate = &pb.InternalAuthenticateRequest{Name: x.Name, SimpleToken: w.TokenPrefix()}
	case *pb.AuthUserAddRequest:
		u := *x
		if u.Options == nil || !u.Options.NoPassword {
			h, err := w.HashPassword(u.Password)
			if err != nil {
				return sim.Command{}, nil, status.Error(codes.Unknown, err.Error()), true
			}
			u.HashedPassword = h
		}
		u.Password = ""
		r.AuthUserAdd = &u
	case *pb.AuthUserChangePasswordRequest:
		c := *x
		if c.Password != "" {
			h, err := w.HashPassword(c.Password)
			if err != nil {
				return sim.Command{}, nil, status.Error(codes.Unknown, err.Error()), true
			}
			c.HashedPassword = h
		}
		c.Password = ""
		r.AuthUserChangePassword = &c
	case *pb.AuthUserGetRequest:
		r.AuthUserGet = x
	case *pb.AuthUserListRequest:
		r.AuthUserList = x
	case *pb.AuthUserDeleteRequest:
		r.AuthUserDelete = x
	case *pb.AuthUserGrantRoleRequest:
		r.AuthUserGrantRole = x
	case *pb.AuthUserRevokeRoleRequest:
		r.AuthUserRevokeRole = x
	case *pb.AuthRoleAddRequest:
		r.AuthRoleAdd = x
	case *pb.AuthRoleGetRequest:
		r.AuthRoleGet = x
	case *pb.AuthRoleListRequest:
		r.AuthRoleList = x
	case *pb.AuthRoleDeleteRequest:
		r.AuthRoleDelete = x
	case *pb.AuthRoleGrantPermissionRequest:
		r.AuthRoleGrantPermission = x
	case *pb.AuthRoleRevokePermissionRequest:
		r.AuthRoleRevokePermission = x
	default:
		return sim.Command{}, nil, nil, false
	}
	return sim.Command{Kind: sim.CmdAuth, Req: server.Request{Auth: &r}}, answer(func(o *server.Response) any { return o.Auth }), nil, true
}
