package wire

// Where etcd's wire calls become the simulation's commands and operations
// become answers. Both speak etcd's own types (server.Request, server.Response):
// what is left here is which command a call is, the Cluster API's
// members by ID (the simulation names them), and the watch filters.

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/membership"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/rpcerr"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/snapshot"
)

// snapshotFile is a member's backend written in etcd v3.6's snapshot
// format (package snapshot): the database, then its sha256, as etcd's
// Snapshot RPC streams them.
type snapshotFile struct {
	path    string
	dbSize  int64
	version string // the storage version, as etcd sends it
}

// note ends a text that is raftsim's own, not etcd's or gRPC's, as every
// such text does (render/ui/testdata/errortexts.txt): a real client shows
// it as the server's, so it says whose it is.
const note = " (raftsim's note)"

// notSimulated is the error for a request the simulation does not serve.
func notSimulated(what string) error {
	return status.Errorf(codes.Unimplemented, "%s is not simulated"+note, what)
}

// finisher turns an ended operation into its answer.
type finisher func(w *sim.World, op *sim.Op) (any, error)

// command turns a unary request to member into the command the world
// applies, and the finisher that answers it once its operation ends. An
// error refuses the request before it enters the world. The world takes
// etcd's own request, and answers with etcd's own response (Op.Resp),
// its header filled in.
func command(w *sim.World, member string, msg any) (sim.Command, finisher, error) {
	if cmd, fin, err, ok := authCommand(w, member, msg); ok {
		return cmd, fin, err
	}
	switch r := msg.(type) {
	case *pb.RangeRequest:
		if err := checkRange(r); err != nil {
			return sim.Command{}, nil, err
		}
		return sim.Command{Kind: sim.CmdGet, Req: server.Request{Range: r}}, answer(func(o *server.Response) any { return o.Range }), nil
	case *pb.PutRequest:
		if err := checkPut(r); err != nil {
			return sim.Command{}, nil, err
		}
		return sim.Command{Kind: sim.CmdPut, Req: server.Request{Put: r}}, answer(func(o *server.Response) any { return o.Put }), nil
	case *pb.DeleteRangeRequest:
		if err := checkDelete(r); err != nil {
			return sim.Command{}, nil, err
		}
		return sim.Command{Kind: sim.CmdDelete, Req: server.Request{DeleteRange: r}},
			answer(func(o *server.Response) any { return o.DeleteRange }), nil
	case *pb.TxnRequest:
		if err := checkTxn(r); err != nil {
			return sim.Command{}, nil, err
		}
		return sim.Command{Kind: sim.CmdTxn, Req: server.Request{Txn: r}}, answer(func(o *server.Response) any { return o.Txn }), nil
	case *pb.CompactionRequest:
		return sim.Command{Kind: sim.CmdCompact, Req: server.Request{Compaction: r}},
			answer(func(o *server.Response) any { return o.Compaction }), nil
	case *pb.LeaseGrantRequest:
		return sim.Command{Kind: sim.CmdLeaseGrant, Req: server.Request{LeaseGrant: r}},
			answer(func(o *server.Response) any { return o.LeaseGrant }), nil
	case *pb.LeaseRevokeRequest:
		return sim.Command{Kind: sim.CmdLeaseRevoke, Req: server.Request{LeaseRevoke: r}},
			answer(func(o *server.Response) any { return o.LeaseRevoke }), nil
	case *pb.LeaseKeepAliveRequest:
		return sim.Command{Kind: sim.CmdLeaseKeepAlive, Req: server.Request{LeaseKeepAlive: r}}, keepAliveAnswer, nil
	case *pb.LeaseTimeToLiveRequest:
		return sim.Command{Kind: sim.CmdLeaseTimeToLive, Req: server.Request{LeaseTimeToLive: r}},
			answer(func(o *server.Response) any { return o.LeaseTimeToLive }), nil
	case *pb.LeaseLeasesRequest:
		return sim.Command{Kind: sim.CmdLeaseList, Req: server.Request{LeaseLeases: r}},
			answer(func(o *server.Response) any { return o.LeaseLeases }), nil
	case *pb.MemberListRequest:
		return sim.Command{Kind: sim.CmdMemberList, Req: server.Request{MemberList: r}}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.MemberListResponse{Header: op.Header(), Members: membersOut(op.Members())}, nil
		}, nil
	case *pb.MemberAddRequest:
		// etcd's v3rpc MemberAdd checks the URLs first (types.NewURLs:
		// none, an empty one, a scheme but http(s)/unix(s), no port, a
		// path) and answers "etcdserver: given member URLs are invalid".
		if membership.CheckURLs(r.PeerURLs) != nil {
			return sim.Command{}, nil, rpctypes.ErrGRPCMemberBadURLs
		}
		if len(r.PeerURLs) != 1 {
			return sim.Command{}, nil, status.Error(codes.Unimplemented, "a member is added with exactly one peer URL"+note)
		}
		name := newMemberName(w)
		return sim.Command{Kind: sim.CmdAddMember, Node: name, PeerURL: r.PeerURLs[0], Learner: r.IsLearner},
			func(w *sim.World, op *sim.Op) (any, error) {
				resp := &pb.MemberAddResponse{Header: op.Header(), Members: membersOut(op.Members())}
				if in, ok := w.Info(name); ok {
					resp.Member = &pb.Member{ID: in.MemberID, PeerURLs: []string{r.PeerURLs[0]}, IsLearner: r.IsLearner}
				}
				return resp, nil
			}, nil
	case *pb.MemberRemoveRequest, *pb.MemberUpdateRequest, *pb.MemberPromoteRequest:
		var id uint64
		cmd := sim.Command{}
		switch r := r.(type) {
		case *pb.MemberRemoveRequest:
			id, cmd.Kind = r.ID, sim.CmdRemoveMember
		case *pb.MemberUpdateRequest:
			if len(r.PeerURLs) != 1 {
				return sim.Command{}, nil, status.Error(codes.Unimplemented, "a member has exactly one peer URL"+note)
			}
			if err := membership.CheckURLs(r.PeerURLs); err != nil {
				// etcd stores what it is given (clientv3 checks first); the
				// simulation keeps valid URLs only.
				return sim.Command{}, nil, status.Errorf(codes.Unimplemented, "a member's peer URL must be valid: %v"+note, err)
			}
			id, cmd.Kind, cmd.PeerURL = r.ID, sim.CmdUpdateMember, r.PeerURLs[0]
		case *pb.MemberPromoteRequest:
			id, cmd.Kind = r.ID, sim.CmdPromote
		}
		name, ok := memberByID(w, id)
		if !ok {
			return sim.Command{}, nil, rpctypes.ErrGRPCMemberNotFound
		}
		cmd.Node = name
		return cmd, func(_ *sim.World, op *sim.Op) (any, error) {
			ms := membersOut(op.Members())
			switch msg.(type) {
			case *pb.MemberRemoveRequest:
				return &pb.MemberRemoveResponse{Header: op.Header(), Members: ms}, nil
			case *pb.MemberUpdateRequest:
				return &pb.MemberUpdateResponse{Header: op.Header(), Members: ms}, nil
			}
			return &pb.MemberPromoteResponse{Header: op.Header(), Members: ms}, nil
		}, nil
	case *pb.AlarmRequest:
		// A list, or a deactivation: the console's alarm list and alarm
		// disarm. The simulation's disarm deactivates every alarm, as
		// etcdctl alarm disarm does (one deactivation each, through raft):
		// the first of etcdctl's deactivations answers with them all, the
		// rest find none, so etcdctl prints what it prints against etcd.
		kind := sim.CmdAlarmList
		if r.Action == pb.AlarmRequest_DEACTIVATE {
			kind = sim.CmdAlarmDisarm
		}
		return sim.Command{Kind: kind}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.AlarmResponse{Header: op.Header(), Alarms: op.Alarms()}, nil
		}, nil
	case *pb.DowngradeRequest:
		// Validate, enable, cancel: server.Downgrade decides at the member.
		return sim.Command{Kind: sim.CmdDowngrade, Downgrade: r}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.DowngradeResponse{Header: op.Header(), Version: op.Version()}, nil
		}, nil
	}
	return sim.Command{}, nil, status.Errorf(codes.Unimplemented, "%T is not simulated"+note, msg)
}

// answer is the finisher of a key-value or lease call: the response the
// world answered with, which pick takes out of the operation's.
func answer(pick func(*server.Response) any) finisher {
	return func(_ *sim.World, op *sim.Op) (any, error) { return pick(&op.Resp), nil }
}

// checkTxn refuses, before it enters the world, a transaction etcd's gRPC
// layer refuses (mvcc.ValidateTxn: --max-txn-ops at each level, less at
// each level nested, so a transaction nests at most 128 deep; an empty
// operation; an empty key; a key written twice), with etcd's error. What
// it lets through is bounded: the --max-txn-ops budget and gRPC's 2 MiB
// message bound the work a transaction makes.
func checkTxn(r *pb.TxnRequest) error {
	if err := mvcc.ValidateTxn(r); err != nil {
		return rpcerr.Error(err.Error())
	}
	return checkTxnOps(r)
}

// checkTxnOps applies checkRange, checkPut and checkDelete to every
// operation of a transaction, at every level, as etcd's checkRequestOp
// does; mvcc.ValidateTxn has already refused empty operations.
func checkTxnOps(r *pb.TxnRequest) error {
	for _, ops := range [][]*pb.RequestOp{r.Success, r.Failure} {
		for _, o := range ops {
			var err error
			switch u := o.Request.(type) {
			case *pb.RequestOp_RequestTxn:
				err = checkTxnOps(u.RequestTxn)
			case *pb.RequestOp_RequestRange:
				err = checkRange(u.RequestRange)
			case *pb.RequestOp_RequestPut:
				err = checkPut(u.RequestPut)
			case *pb.RequestOp_RequestDeleteRange:
				err = checkDelete(u.RequestDeleteRange)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRange, checkPut and checkDelete refuse what etcd v3.6's gRPC layer
// refuses before raft (server/etcdserver/api/v3rpc/key.go), with its
// errors: such a request never enters the world, and so is not logged.
func checkRange(r *pb.RangeRequest) error {
	if len(r.Key) == 0 {
		return rpctypes.ErrGRPCEmptyKey
	}
	if _, ok := pb.RangeRequest_SortOrder_name[int32(r.SortOrder)]; !ok {
		return rpctypes.ErrGRPCInvalidSortOption
	}
	if _, ok := pb.RangeRequest_SortTarget_name[int32(r.SortTarget)]; !ok {
		return rpctypes.ErrGRPCInvalidSortOption
	}
	return nil
}

func checkPut(r *pb.PutRequest) error {
	if len(r.Key) == 0 {
		return rpctypes.ErrGRPCEmptyKey
	}
	if r.IgnoreValue && len(r.Value) != 0 {
		return rpctypes.ErrGRPCValueProvided
	}
	if r.IgnoreLease && r.Lease != 0 {
		return rpctypes.ErrGRPCLeaseProvided
	}
	return nil
}

func checkDelete(r *pb.DeleteRangeRequest) error {
	if len(r.Key) == 0 {
		return rpctypes.ErrGRPCEmptyKey
	}
	return nil
}

// failed is the answer to an operation that ended in an error.
func failed(op *sim.Op) error { return rpcerr.Error(op.Err) }

// keepAliveAnswer answers one keep-alive. A lease that is gone is no error
// on the wire: etcd answers it with TTL 0.
func keepAliveAnswer(_ *sim.World, op *sim.Op) (any, error) { return op.Resp.LeaseKeepAlive, nil }

// leaseGone reports whether a keep-alive failed only because its lease is
// gone.
func leaseGone(op *sim.Op) bool {
	return op.Kind == sim.OpLeaseKeepAlive && op.Err == status.Convert(rpctypes.ErrGRPCLeaseNotFound).Message()
}

// immediate answers a request that a member serves at once from its own
// state, without consensus and without changing the world (Status, HashKV,
// Defragment, an alarm it cannot have); ok is false for any other request.
func immediate(w *sim.World, member string, msg any) (resp any, err error, ok bool) {
	switch r := msg.(type) {
	case *pb.StatusRequest:
		s, up := w.Status(member)
		if !up {
			return nil, rpctypes.ErrGRPCStopped, true
		}
		return s, nil, true
	case *pb.HashKVRequest:
		h, cur, err := w.HashKV(member, r.Revision)
		if err != nil {
			return nil, rpcerr.Error(err.Error()), true
		}
		hdr := w.Header(member, false)
		hdr.Revision = cur
		return &pb.HashKVResponse{Header: hdr, Hash: h.Hash, CompactRevision: h.CompactRevision, HashRevision: h.Revision}, nil, true
	case *pb.SnapshotRequest:
		st, records, err := w.SnapshotOf(member)
		if err != nil {
			return nil, rpctypes.ErrGRPCStopped, true
		}
		f, err := os.CreateTemp("", "raftsim-snapshot-*.db")
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error()+note), true
		}
		f.Close()
		written, err := snapshot.Write(f.Name(), st, records)
		if err != nil {
			os.Remove(f.Name())
			return nil, status.Error(codes.Internal, err.Error()+note), true
		}
		return &snapshotFile{path: f.Name(), dbSize: written.DBSize, version: st.StorageVersion}, nil, true
	case *pb.AlarmRequest:
		switch r.Action {
		case pb.AlarmRequest_GET:
			return nil, nil, false // read through raft, as etcd does
		case pb.AlarmRequest_DEACTIVATE:
			return nil, nil, false // through raft, as the console's alarm disarm
		}
		return nil, notSimulated("raising an alarm"), true
	}
	return nil, nil, false
}

func membersOut(ms []sim.ClusterMember) []*pb.Member {
	var out []*pb.Member
	for _, m := range ms {
		out = append(out, &pb.Member{ID: m.ID, Name: m.Name, PeerURLs: m.PeerURLs, ClientURLs: m.ClientURLs, IsLearner: m.IsLearner})
	}
	return out
}

// memberByID finds a member's name by its etcd member ID.
func memberByID(w *sim.World, id uint64) (string, bool) {
	for _, in := range w.Infos() {
		if in.MemberID == id && !in.Removed {
			return in.Name, true
		}
	}
	return "", false
}

var numbered = regexp.MustCompile(`^(.*?)([0-9]+)$`)

// newMemberName names a member added over the wire (etcd's MemberAdd
// carries no name: the member takes the one it is started with): the next
// of the cluster's numbered names (m3 → m4, etcd-5 → etcd-6), else
// member-N.
func newMemberName(w *sim.World) string {
	names := w.MemberNames()
	prefix, n := "member-", len(names)
	if m := numbered.FindStringSubmatch(names[len(names)-1]); m != nil {
		prefix = m[1]
		n, _ = strconv.Atoi(m[2])
	}
	// A name an earlier add_member gave is taken even if that add was
	// refused: the session's file names each add_member once, so that a
	// replay refuses it again rather than finding the name used twice.
	added := w.AddMemberNames()
	taken := func(s string) bool {
		if _, ok := w.Info(s); ok || slices.Contains(added, s) {
			return true
		}
		for _, c := range w.Clients() {
			if c.Name == s {
				return true
			}
		}
		return false
	}
	for n++; taken(fmt.Sprintf("%s%d", prefix, n)); n++ {
	}
	return fmt.Sprintf("%s%d", prefix, n)
}

// watchCommand turns a watch's create request into the command that opens
// it. Filters are applied to the events on their way out (filtered).
func watchCommand(r *pb.WatchCreateRequest, requireLeader bool) sim.Command {
	return sim.Command{Kind: sim.CmdWatch, Req: server.Request{Watch: r}, RequireLeader: requireLeader}
}

// eventOut is a watch event as it goes out; nil when the watch's filters
// drop it.
func eventOut(ev *sim.WatchEvent, filters []pb.WatchCreateRequest_FilterType) *mvccpb.Event {
	for _, f := range filters {
		if f == pb.WatchCreateRequest_NOPUT && ev.Type == mvccpb.PUT || f == pb.WatchCreateRequest_NODELETE && ev.Type == mvccpb.DELETE {
			return nil
		}
	}
	return &ev.Event
}
