package wire

// The one place where etcd's wire types meet the simulation's own request
// vocabulary (sim.Command in, sim.Op out). The simulation is moving to
// etcdserverpb itself (issue 20); as it does, what is here shrinks to
// nothing.

import (
	"fmt"
	"os"
	"regexp"
	"strconv"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/rpcerr"
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

// notSimulated is the error for a request field the simulated store does
// not implement yet.
func notSimulated(what string) error {
	return status.Errorf(codes.Unimplemented, "raftsim: %s is not simulated", what)
}

// finisher turns an ended operation into its answer.
type finisher func(w *sim.World, op *sim.Op) (any, error)

// command turns a unary request to member into the command the world
// applies, and the finisher that answers it once its operation ends. An
// error refuses the request before it enters the world.
func command(w *sim.World, member string, msg any) (sim.Command, finisher, error) {
	switch r := msg.(type) {
	case *pb.RangeRequest:
		if r.MinModRevision != 0 || r.MaxModRevision != 0 || r.MinCreateRevision != 0 || r.MaxCreateRevision != 0 {
			return sim.Command{}, nil, notSimulated("a range's revision filters")
		}
		return sim.Command{Kind: sim.CmdGet, Key: string(r.Key), RangeEnd: string(r.RangeEnd), Rev: r.Revision,
			Limit: r.Limit, SortOrder: mvcc.SortOrder(r.SortOrder), SortTarget: mvcc.SortTarget(r.SortTarget),
			Serializable: r.Serializable, KeysOnly: r.KeysOnly, CountOnly: r.CountOnly}, rangeAnswer, nil
	case *pb.PutRequest:
		if r.IgnoreValue || r.IgnoreLease {
			return sim.Command{}, nil, notSimulated("put's ignore_value and ignore_lease")
		}
		return sim.Command{Kind: sim.CmdPut, Key: string(r.Key), Value: string(r.Value), Lease: r.Lease, PrevKV: r.PrevKv},
			func(_ *sim.World, op *sim.Op) (any, error) {
				resp := &pb.PutResponse{Header: header(op)}
				if len(op.PrevKVs) > 0 {
					resp.PrevKv = kvOut(op.PrevKVs[0])
				}
				return resp, nil
			}, nil
	case *pb.DeleteRangeRequest:
		return sim.Command{Kind: sim.CmdDelete, Key: string(r.Key), RangeEnd: string(r.RangeEnd), PrevKV: r.PrevKv},
			func(_ *sim.World, op *sim.Op) (any, error) {
				return &pb.DeleteRangeResponse{Header: header(op), Deleted: int64(op.Deleted), PrevKvs: kvsOut(op.PrevKVs)}, nil
			}, nil
	case *pb.TxnRequest:
		t, err := txnIn(r)
		if err != nil {
			return sim.Command{}, nil, err
		}
		return sim.Command{Kind: sim.CmdTxn, Txn: t}, func(_ *sim.World, op *sim.Op) (any, error) {
			resp := txnOut(op.TxnResp)
			resp.Header = header(op)
			return resp, nil
		}, nil
	case *pb.CompactionRequest:
		return sim.Command{Kind: sim.CmdCompact, Rev: r.Revision}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.CompactionResponse{Header: header(op)}, nil
		}, nil
	case *pb.LeaseGrantRequest:
		return sim.Command{Kind: sim.CmdLeaseGrant, TTL: r.TTL, Lease: r.ID}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.LeaseGrantResponse{Header: header(op), ID: op.LeaseResp.ID, TTL: op.LeaseResp.TTL}, nil
		}, nil
	case *pb.LeaseRevokeRequest:
		return sim.Command{Kind: sim.CmdLeaseRevoke, Lease: r.ID}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.LeaseRevokeResponse{Header: header(op)}, nil
		}, nil
	case *pb.LeaseKeepAliveRequest:
		return sim.Command{Kind: sim.CmdLeaseKeepAlive, Lease: r.ID}, keepAliveAnswer, nil
	case *pb.LeaseTimeToLiveRequest:
		return sim.Command{Kind: sim.CmdLeaseTimeToLive, Lease: r.ID, LeaseKeys: r.Keys}, func(_ *sim.World, op *sim.Op) (any, error) {
			resp := &pb.LeaseTimeToLiveResponse{Header: header(op), ID: op.LeaseResp.ID, TTL: op.LeaseResp.TTL,
				GrantedTTL: op.LeaseResp.GrantedTTL}
			for _, k := range op.LeaseResp.Keys {
				resp.Keys = append(resp.Keys, []byte(k))
			}
			return resp, nil
		}, nil
	case *pb.LeaseLeasesRequest:
		return sim.Command{Kind: sim.CmdLeaseList}, func(_ *sim.World, op *sim.Op) (any, error) {
			resp := &pb.LeaseLeasesResponse{Header: header(op)}
			for _, id := range op.LeaseResp.Leases {
				resp.Leases = append(resp.Leases, &pb.LeaseStatus{ID: id})
			}
			return resp, nil
		}, nil
	case *pb.MemberListRequest:
		return sim.Command{Kind: sim.CmdMemberList, Serializable: !r.Linearizable}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.MemberListResponse{Header: header(op), Members: membersOut(op.Members)}, nil
		}, nil
	case *pb.MemberAddRequest:
		if len(r.PeerURLs) != 1 {
			return sim.Command{}, nil, status.Error(codes.Unimplemented, "raftsim: a member is added with exactly one peer URL")
		}
		name := newMemberName(w)
		return sim.Command{Kind: sim.CmdAddMember, Node: name, PeerURL: r.PeerURLs[0], Learner: r.IsLearner},
			func(w *sim.World, op *sim.Op) (any, error) {
				resp := &pb.MemberAddResponse{Header: header(op), Members: membersOut(op.Members)}
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
				return sim.Command{}, nil, status.Error(codes.Unimplemented, "raftsim: a member has exactly one peer URL")
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
			ms := membersOut(op.Members)
			switch msg.(type) {
			case *pb.MemberRemoveRequest:
				return &pb.MemberRemoveResponse{Header: header(op), Members: ms}, nil
			case *pb.MemberUpdateRequest:
				return &pb.MemberUpdateResponse{Header: header(op), Members: ms}, nil
			}
			return &pb.MemberPromoteResponse{Header: header(op), Members: ms}, nil
		}, nil
	case *pb.AlarmRequest:
		return sim.Command{Kind: sim.CmdAlarmList}, func(_ *sim.World, op *sim.Op) (any, error) {
			return &pb.AlarmResponse{Header: header(op)}, nil
		}, nil
	}
	return sim.Command{}, nil, status.Errorf(codes.Unimplemented, "raftsim: %T is not simulated", msg)
}

// failed is the answer to an operation that ended in an error.
func failed(op *sim.Op) error { return rpcerr.Error(op.Err) }

func rangeAnswer(_ *sim.World, op *sim.Op) (any, error) {
	return &pb.RangeResponse{Header: header(op), Kvs: kvsOut(op.KVs), More: op.More, Count: op.Count}, nil
}

// keepAliveAnswer answers one keep-alive. A lease that is gone is no error
// on the wire: etcd answers it with TTL 0.
func keepAliveAnswer(_ *sim.World, op *sim.Op) (any, error) {
	return &pb.LeaseKeepAliveResponse{Header: header(op), ID: op.LeaseResp.ID, TTL: op.LeaseResp.TTL}, nil
}

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
			return nil, status.Error(codes.Internal, "raftsim: "+err.Error()), true
		}
		f.Close()
		written, err := snapshot.Write(f.Name(), st, records)
		if err != nil {
			os.Remove(f.Name())
			return nil, status.Error(codes.Internal, "raftsim: "+err.Error()), true
		}
		return &snapshotFile{path: f.Name(), dbSize: written.DBSize, version: st.StorageVersion}, nil, true
	case *pb.DefragmentRequest:
		// The simulated store keeps no free pages: there is nothing to do.
		return &pb.DefragmentResponse{Header: w.Header(member, true)}, nil, true
	case *pb.AlarmRequest:
		switch r.Action {
		case pb.AlarmRequest_GET:
			return nil, nil, false // read through raft, as etcd does
		case pb.AlarmRequest_DEACTIVATE:
			// The simulation raises no alarm, so there is none to disarm.
			return &pb.AlarmResponse{Header: w.Header(member, true)}, nil, true
		}
		return nil, notSimulated("raising an alarm"), true
	}
	return nil, nil, false
}

// header is the response header of an ended operation.
func header(op *sim.Op) *pb.ResponseHeader {
	h := op.Header
	return &pb.ResponseHeader{ClusterId: h.ClusterId, MemberId: h.MemberId, Revision: h.Revision, RaftTerm: h.RaftTerm}
}

func headerOut(h mvcc.ResponseHeader) *pb.ResponseHeader {
	return &pb.ResponseHeader{ClusterId: h.ClusterId, MemberId: h.MemberId, Revision: h.Revision, RaftTerm: h.RaftTerm}
}

func kvOut(kv sim.KeyValue) *mvccpb.KeyValue {
	return &mvccpb.KeyValue{Key: []byte(kv.Key), CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision,
		Version: kv.Version, Value: bytesOrNil(kv.Value), Lease: kv.Lease}
}

// bytesOrNil keeps an empty value empty on the wire (etcd sends no value
// field for a keys-only read).
func bytesOrNil(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func kvsOut(kvs []sim.KeyValue) []*mvccpb.KeyValue {
	var out []*mvccpb.KeyValue
	for _, kv := range kvs {
		out = append(out, kvOut(kv))
	}
	return out
}

func mkvsOut(kvs []*mvcc.KeyValue) []*mvccpb.KeyValue {
	var out []*mvccpb.KeyValue
	for _, kv := range kvs {
		out = append(out, kvOut(*kv))
	}
	return out
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
	taken := func(s string) bool {
		if _, ok := w.Info(s); ok {
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

// txnIn converts a transaction.
func txnIn(r *pb.TxnRequest) (*mvcc.TxnRequest, error) {
	t := &mvcc.TxnRequest{}
	for _, c := range r.Compare {
		x := &mvcc.Compare{Result: mvcc.CompareResult(c.Result), Target: mvcc.CompareTarget(c.Target),
			Key: string(c.Key), RangeEnd: string(c.RangeEnd)}
		switch u := c.TargetUnion.(type) {
		case *pb.Compare_Version:
			x.Version = u.Version
		case *pb.Compare_CreateRevision:
			x.CreateRevision = u.CreateRevision
		case *pb.Compare_ModRevision:
			x.ModRevision = u.ModRevision
		case *pb.Compare_Value:
			x.Value = string(u.Value)
		case *pb.Compare_Lease:
			x.Lease = u.Lease
		}
		t.Compare = append(t.Compare, x)
	}
	for _, side := range []struct {
		in  []*pb.RequestOp
		out *[]*mvcc.RequestOp
	}{{r.Success, &t.Success}, {r.Failure, &t.Failure}} {
		for _, o := range side.in {
			x := &mvcc.RequestOp{}
			switch u := o.Request.(type) {
			case *pb.RequestOp_RequestRange:
				q := u.RequestRange
				if q.MinModRevision != 0 || q.MaxModRevision != 0 || q.MinCreateRevision != 0 || q.MaxCreateRevision != 0 {
					return nil, notSimulated("a range's revision filters")
				}
				x.RequestRange = &mvcc.RangeRequest{Key: string(q.Key), RangeEnd: string(q.RangeEnd), Limit: q.Limit,
					Revision: q.Revision, SortOrder: mvcc.SortOrder(q.SortOrder), SortTarget: mvcc.SortTarget(q.SortTarget),
					Serializable: q.Serializable, KeysOnly: q.KeysOnly, CountOnly: q.CountOnly}
			case *pb.RequestOp_RequestPut:
				q := u.RequestPut
				if q.IgnoreValue || q.IgnoreLease {
					return nil, notSimulated("put's ignore_value and ignore_lease")
				}
				x.RequestPut = &mvcc.PutRequest{Key: string(q.Key), Value: string(q.Value), Lease: q.Lease, PrevKv: q.PrevKv}
			case *pb.RequestOp_RequestDeleteRange:
				q := u.RequestDeleteRange
				x.RequestDeleteRange = &mvcc.DeleteRangeRequest{Key: string(q.Key), RangeEnd: string(q.RangeEnd), PrevKv: q.PrevKv}
			case *pb.RequestOp_RequestTxn:
				n, err := txnIn(u.RequestTxn)
				if err != nil {
					return nil, err
				}
				x.RequestTxn = n
			default:
				return nil, status.Error(codes.InvalidArgument, "raftsim: an empty request in a transaction")
			}
			*side.out = append(*side.out, x)
		}
	}
	return t, nil
}

// txnOut converts a transaction's answer.
func txnOut(r *mvcc.TxnResponse) *pb.TxnResponse {
	if r == nil {
		return &pb.TxnResponse{}
	}
	out := &pb.TxnResponse{Header: headerOut(r.Header), Succeeded: r.Succeeded}
	for _, o := range r.Responses {
		x := &pb.ResponseOp{}
		switch {
		case o.ResponseRange != nil:
			q := o.ResponseRange
			x.Response = &pb.ResponseOp_ResponseRange{ResponseRange: &pb.RangeResponse{Header: headerOut(q.Header),
				Kvs: mkvsOut(q.Kvs), More: q.More, Count: q.Count}}
		case o.ResponsePut != nil:
			q := &pb.PutResponse{Header: headerOut(o.ResponsePut.Header)}
			if o.ResponsePut.PrevKv != nil {
				q.PrevKv = kvOut(*o.ResponsePut.PrevKv)
			}
			x.Response = &pb.ResponseOp_ResponsePut{ResponsePut: q}
		case o.ResponseDeleteRange != nil:
			q := o.ResponseDeleteRange
			x.Response = &pb.ResponseOp_ResponseDeleteRange{ResponseDeleteRange: &pb.DeleteRangeResponse{
				Header: headerOut(q.Header), Deleted: q.Deleted, PrevKvs: mkvsOut(q.PrevKvs)}}
		case o.ResponseTxn != nil:
			x.Response = &pb.ResponseOp_ResponseTxn{ResponseTxn: txnOut(o.ResponseTxn)}
		}
		out.Responses = append(out.Responses, x)
	}
	return out
}

// watchCommand turns a watch's create request into the command that opens
// it. Filters are applied to the events on their way out (filtered).
func watchCommand(r *pb.WatchCreateRequest, requireLeader bool) sim.Command {
	return sim.Command{Kind: sim.CmdWatch, Key: string(r.Key), RangeEnd: string(r.RangeEnd), Rev: r.StartRevision,
		PrevKV: r.PrevKv, RequireLeader: requireLeader}
}

// eventOut converts a watch event; nil when the watch's filters drop it.
func eventOut(ev sim.WatchEvent, filters []pb.WatchCreateRequest_FilterType) *mvccpb.Event {
	t := mvccpb.PUT
	if ev.Type == "DELETE" {
		t = mvccpb.DELETE
	}
	for _, f := range filters {
		if f == pb.WatchCreateRequest_NOPUT && t == mvccpb.PUT || f == pb.WatchCreateRequest_NODELETE && t == mvccpb.DELETE {
			return nil
		}
	}
	e := &mvccpb.Event{Type: t, Kv: kvOut(ev.KV)}
	if ev.PrevKV != nil {
		e.PrevKv = kvOut(*ev.PrevKV)
	}
	return e
}
