package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/protobuf/encoding/protowire"
)

// Encode writes what a raft entry holds: etcd's InternalRaftRequest.
func Encode(r *etcdserverpb.InternalRaftRequest) []byte {
	data, err := r.Marshal()
	if err != nil {
		panic("server: encode a request: " + err.Error())
	}
	return data
}

// RequestID is the ID of an InternalRaftRequest's header.
func RequestID(r *etcdserverpb.InternalRaftRequest) uint64 {
	if r.Header == nil {
		return 0
	}
	return r.Header.ID
}

// raftRequest fills r with the InternalRaftRequest a write becomes, with
// header h; a lease grant without an ID gets leaseID. NB: r shares req's
// request (but for such a grant).
func raftRequest(r *etcdserverpb.InternalRaftRequest, h *etcdserverpb.RequestHeader, req *Request, leaseID int64) {
	if req.Auth != nil {
		*r = *req.Auth
		r.Header = h
		return
	}
	r.Header = h
	r.Put, r.DeleteRange, r.Txn, r.Compaction = req.Put, req.DeleteRange, req.Txn, req.Compaction
	r.LeaseGrant, r.LeaseRevoke = req.LeaseGrant, req.LeaseRevoke
	if g := r.LeaseGrant; g != nil && g.ID == 0 {
		r.LeaseGrant = &etcdserverpb.LeaseGrantRequest{TTL: g.TTL, ID: leaseID}
	}
}

// Proposal is the entry a member proposes for a client's write, as etcd's
// processInternalRaftRequestOnce makes it: the request in an
// InternalRaftRequest with a request ID of its own, id, drawn from ids,
// which the member waits on (Wait). A lease grant without an ID gets one
// drawn first, where the request arrives (etcd's LeaseGrant).
func Proposal(ids *IDGen, req *Request) (id uint64, data []byte) {
	return ProposalAs(ids, req, nil)
}

// ProposalAs is Proposal for a request from the user ai (nil: none, or
// auth is disabled), whose name and auth revision the entry's header
// carries, as etcd's processInternalRaftRequestOnce puts them there.
func ProposalAs(ids *IDGen, req *Request, ai *AuthInfo) (id uint64, data []byte) {
	var leaseID int64
	if req.LeaseGrant != nil && req.LeaseGrant.ID == 0 {
		leaseID = ids.NextLease()
	}
	h := etcdserverpb.RequestHeader{ID: ids.Next()}
	if ai != nil {
		h.Username, h.AuthRevision = ai.Username, ai.Revision
	}
	var r etcdserverpb.InternalRaftRequest
	raftRequest(&r, &h, req, leaseID)
	return h.ID, Encode(&r)
}

// IsClusterRequest reports whether r is one a member proposes for itself
// (a publication, the cluster version) or an alarm request: not a
// client's key-value request.
func IsClusterRequest(r *etcdserverpb.InternalRaftRequest) bool {
	return r.ClusterMemberAttrSet != nil || r.ClusterVersionSet != nil || r.Alarm != nil || r.DowngradeInfoSet != nil
}

// IsClusterEntry is IsClusterRequest of an entry's data.
func IsClusterEntry(data []byte) bool {
	var r etcdserverpb.InternalRaftRequest
	return r.Unmarshal(data) == nil && IsClusterRequest(&r)
}

// Decoder decodes entries. Every member decodes every write, and puts are
// most of them: a put is decoded into the decoder's own header and
// request, which nothing keeps (the store keeps the key and value bytes,
// which are the entry's own). One Decoder serves one goroutine.
type Decoder struct {
	header etcdserverpb.RequestHeader
	put    etcdserverpb.PutRequest
}

// Decode decodes an entry's data into r. What r holds is valid until the
// next Decode.
func (d *Decoder) Decode(data []byte, r *etcdserverpb.InternalRaftRequest) error {
	if isPut(data) {
		// NB: zeroed first, or the decoder would write the bytes into the
		// last put's.
		d.header, d.put = etcdserverpb.RequestHeader{}, etcdserverpb.PutRequest{}
		r.Header, r.Put = &d.header, &d.put
	}
	return r.Unmarshal(data)
}

// isPut reports whether an entry's InternalRaftRequest holds a header and
// a put (fields 100 and 4) and nothing else.
func isPut(data []byte) bool {
	put := false
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 || num != 100 && num != 4 {
			return false
		}
		put = put || num == 4
		m := protowire.ConsumeFieldValue(num, typ, data[n:])
		if m < 0 {
			return false
		}
		data = data[n+m:]
	}
	return put
}

// Summary says what an entry holds, for the log view: "put k = v", "del
// --prefix k", "publish etcd-1", "cluster version 3.6.0", "alarm list", or
// "?" for anything else.
func Summary(data []byte) string {
	var r etcdserverpb.InternalRaftRequest
	if r.Unmarshal(data) != nil {
		return "?"
	}
	switch {
	case r.ClusterMemberAttrSet != nil:
		name := ""
		if a := r.ClusterMemberAttrSet.MemberAttributes; a != nil {
			name = a.Name
		}
		return "publish " + name
	case r.ClusterVersionSet != nil:
		return "cluster version " + r.ClusterVersionSet.Ver
	case r.DowngradeInfoSet != nil:
		if !r.DowngradeInfoSet.Enabled {
			return "downgrade cancel"
		}
		return "downgrade enable " + r.DowngradeInfoSet.Ver
	case r.Alarm != nil:
		return "alarm list"
	case r.Put != nil:
		return "put " + string(r.Put.Key) + " = " + string(r.Put.Value)
	case r.DeleteRange != nil:
		if IsPrefix(r.DeleteRange.Key, r.DeleteRange.RangeEnd) {
			return "del --prefix " + DisplayKey(r.DeleteRange.Key)
		}
		return "del " + string(r.DeleteRange.Key)
	}
	return "?"
}

// HeaderID reads the request ID of an entry's InternalRaftRequest (its
// header, field 100, and the header's ID, field 1) without decoding the
// rest; 0 if it has none.
func HeaderID(data []byte) uint64 {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return 0
		}
		data = data[n:]
		if num == 100 && typ == protowire.BytesType {
			h, m := protowire.ConsumeBytes(data)
			if m < 0 {
				return 0
			}
			for len(h) > 0 {
				hn, ht, k := protowire.ConsumeTag(h)
				if k < 0 {
					return 0
				}
				h = h[k:]
				if hn == 1 && ht == protowire.VarintType {
					id, _ := protowire.ConsumeVarint(h)
					return id
				}
				k = protowire.ConsumeFieldValue(hn, ht, h)
				if k < 0 {
					return 0
				}
				h = h[k:]
			}
			return 0
		}
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return 0
		}
		data = data[m:]
	}
	return 0
}
