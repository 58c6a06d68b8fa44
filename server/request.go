package server

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/mvcc"
)

// Request is one client call, in etcd's own types (go.etcd.io/etcd/api/v3
// etcdserverpb): exactly one field is set. It is what the console, the
// scenarios, the swarm and the wire build, what a raft entry carries
// (inside etcd's InternalRaftRequest) and what the store applies.
type Request struct {
	Range           *etcdserverpb.RangeRequest
	Put             *etcdserverpb.PutRequest
	DeleteRange     *etcdserverpb.DeleteRangeRequest
	Txn             *etcdserverpb.TxnRequest
	Compaction      *etcdserverpb.CompactionRequest
	LeaseGrant      *etcdserverpb.LeaseGrantRequest
	LeaseRevoke     *etcdserverpb.LeaseRevokeRequest
	LeaseKeepAlive  *etcdserverpb.LeaseKeepAliveRequest
	LeaseTimeToLive *etcdserverpb.LeaseTimeToLiveRequest
	LeaseLeases     *etcdserverpb.LeaseLeasesRequest
	Watch           *etcdserverpb.WatchCreateRequest
	MemberList      *etcdserverpb.MemberListRequest
	// Auth is one of the Auth service's calls as etcd proposes it: the
	// InternalRaftRequest with one of its Auth* fields set (a user's
	// password as its bcrypt hash, an Authenticate with its token prefix:
	// never a password), and no header.
	Auth *etcdserverpb.InternalRaftRequest

	// Token is the simple token the call carries in its gRPC metadata
	// ("token"), from an Authenticate; "" for none. It is not a field of
	// the kind: it goes with any of them.
	Token string
}

// KeyRange returns the keys a get, put, delete or watch acts on: its key
// and range end (empty: the key alone; mvcc.GteEnd: every key from it on).
func (r *Request) KeyRange() (key, end []byte) {
	switch {
	case r.Range != nil:
		return r.Range.Key, r.Range.RangeEnd
	case r.Put != nil:
		return r.Put.Key, nil
	case r.DeleteRange != nil:
		return r.DeleteRange.Key, r.DeleteRange.RangeEnd
	case r.Watch != nil:
		return r.Watch.Key, r.Watch.RangeEnd
	}
	return nil, nil
}

// Lease returns the lease a put attaches its key to, or the lease a lease
// call is about.
func (r *Request) Lease() int64 {
	switch {
	case r.Put != nil:
		return r.Put.Lease
	case r.LeaseGrant != nil:
		return r.LeaseGrant.ID
	case r.LeaseRevoke != nil:
		return r.LeaseRevoke.ID
	case r.LeaseKeepAlive != nil:
		return r.LeaseKeepAlive.ID
	case r.LeaseTimeToLive != nil:
		return r.LeaseTimeToLive.ID
	}
	return 0
}

// Serializable reports whether a get (or a member list) is answered from
// the serving member's state, without a read index.
func (r *Request) Serializable() bool {
	switch {
	case r.Range != nil:
		return r.Range.Serializable
	case r.MemberList != nil:
		return !r.MemberList.Linearizable
	}
	return false
}

// Size returns the size of the request as a gRPC message.
func (r *Request) Size() int {
	switch {
	case r.Range != nil:
		return r.Range.Size()
	case r.Put != nil:
		return r.Put.Size()
	case r.DeleteRange != nil:
		return r.DeleteRange.Size()
	case r.Txn != nil:
		return r.Txn.Size()
	case r.Watch != nil:
		return r.Watch.Size()
	}
	return 0
}

// IsPrefix reports whether a range is every key with the key as its
// prefix, as clientv3's WithPrefix makes it (the empty prefix is the key
// "\x00" from on, which is every key).
func IsPrefix(key, end []byte) bool {
	if len(end) == 0 {
		return false
	}
	if mvcc.IsGteEnd(end) && len(key) == 1 && key[0] == 0 {
		return true
	}
	return string(end) == string(mvcc.PrefixEnd(key)) && !mvcc.IsGteEnd(end)
}

// DisplayKey is a key as the user gave it: "\x00", what clientv3 sends
// for the empty key with --prefix or --from-key, is "".
func DisplayKey(k []byte) string {
	if len(k) == 1 && k[0] == 0 {
		return ""
	}
	return string(k)
}

// Response is what a call answered, in etcd's own types: the field of the
// request's kind is set.
type Response struct {
	Range           *etcdserverpb.RangeResponse
	Put             *etcdserverpb.PutResponse
	DeleteRange     *etcdserverpb.DeleteRangeResponse
	Txn             *etcdserverpb.TxnResponse
	Compaction      *etcdserverpb.CompactionResponse
	LeaseGrant      *etcdserverpb.LeaseGrantResponse
	LeaseRevoke     *etcdserverpb.LeaseRevokeResponse
	LeaseKeepAlive  *etcdserverpb.LeaseKeepAliveResponse
	LeaseTimeToLive *etcdserverpb.LeaseTimeToLiveResponse
	LeaseLeases     *etcdserverpb.LeaseLeasesResponse
	Watch           *etcdserverpb.WatchResponse
	// Auth is an Auth service call's answer: one of etcdserverpb's
	// Auth*Response types.
	Auth any
}

// Header returns the response's header, or nil when none is set.
func (r *Response) Header() *etcdserverpb.ResponseHeader {
	switch {
	case r.Range != nil:
		return r.Range.Header
	case r.Put != nil:
		return r.Put.Header
	case r.DeleteRange != nil:
		return r.DeleteRange.Header
	case r.Txn != nil:
		return r.Txn.Header
	case r.Compaction != nil:
		return r.Compaction.Header
	case r.LeaseGrant != nil:
		return r.LeaseGrant.Header
	case r.LeaseRevoke != nil:
		return r.LeaseRevoke.Header
	case r.LeaseKeepAlive != nil:
		return r.LeaseKeepAlive.Header
	case r.LeaseTimeToLive != nil:
		return r.LeaseTimeToLive.Header
	case r.LeaseLeases != nil:
		return r.LeaseLeases.Header
	case r.Watch != nil:
		return r.Watch.Header
	case r.Auth != nil:
		if g, ok := r.Auth.(interface {
			GetHeader() *etcdserverpb.ResponseHeader
		}); ok {
			return g.GetHeader()
		}
	}
	return nil
}

// SetHeader makes h the response's header. A response built with no
// header gets one.
func (r *Response) SetHeader(h *etcdserverpb.ResponseHeader) {
	switch {
	case r.Range != nil:
		r.Range.Header = h
	case r.Put != nil:
		r.Put.Header = h
	case r.DeleteRange != nil:
		r.DeleteRange.Header = h
	case r.Txn != nil:
		r.Txn.Header = h
	case r.Compaction != nil:
		r.Compaction.Header = h
	case r.LeaseGrant != nil:
		r.LeaseGrant.Header = h
	case r.LeaseRevoke != nil:
		r.LeaseRevoke.Header = h
	case r.LeaseKeepAlive != nil:
		r.LeaseKeepAlive.Header = h
	case r.LeaseTimeToLive != nil:
		r.LeaseTimeToLive.Header = h
	case r.LeaseLeases != nil:
		r.LeaseLeases.Header = h
	case r.Watch != nil:
		r.Watch.Header = h
	case r.Auth != nil:
		setAuthHeader(r.Auth, h)
	}
}

// Revision returns the store revision the answer reflects (its header's),
// or 0.
func (r *Response) Revision() int64 {
	if h := r.Header(); h != nil {
		return h.Revision
	}
	return 0
}

// Message returns the request that is set (nil when none is): one of
// etcdserverpb's request types.
func (r *Request) Message() any {
	switch {
	case r.Range != nil:
		return r.Range
	case r.Put != nil:
		return r.Put
	case r.DeleteRange != nil:
		return r.DeleteRange
	case r.Txn != nil:
		return r.Txn
	case r.Compaction != nil:
		return r.Compaction
	case r.LeaseGrant != nil:
		return r.LeaseGrant
	case r.LeaseRevoke != nil:
		return r.LeaseRevoke
	case r.LeaseKeepAlive != nil:
		return r.LeaseKeepAlive
	case r.LeaseTimeToLive != nil:
		return r.LeaseTimeToLive
	case r.LeaseLeases != nil:
		return r.LeaseLeases
	case r.Watch != nil:
		return r.Watch
	case r.MemberList != nil:
		return r.MemberList
	case r.Auth != nil:
		return r.Auth
	}
	return nil
}

// RequestFor is the Request whose one field is msg, one of etcdserverpb's
// request types (the zero Request for anything else).
func RequestFor(msg any) Request {
	switch x := msg.(type) {
	case *etcdserverpb.RangeRequest:
		return Request{Range: x}
	case *etcdserverpb.PutRequest:
		return Request{Put: x}
	case *etcdserverpb.DeleteRangeRequest:
		return Request{DeleteRange: x}
	case *etcdserverpb.TxnRequest:
		return Request{Txn: x}
	case *etcdserverpb.CompactionRequest:
		return Request{Compaction: x}
	case *etcdserverpb.LeaseGrantRequest:
		return Request{LeaseGrant: x}
	case *etcdserverpb.LeaseRevokeRequest:
		return Request{LeaseRevoke: x}
	case *etcdserverpb.LeaseKeepAliveRequest:
		return Request{LeaseKeepAlive: x}
	case *etcdserverpb.LeaseTimeToLiveRequest:
		return Request{LeaseTimeToLive: x}
	case *etcdserverpb.LeaseLeasesRequest:
		return Request{LeaseLeases: x}
	case *etcdserverpb.WatchCreateRequest:
		return Request{Watch: x}
	case *etcdserverpb.MemberListRequest:
		return Request{MemberList: x}
	case *etcdserverpb.InternalRaftRequest:
		return Request{Auth: x}
	}
	return Request{}
}

// PrefixRange returns the key and range end of every key with the prefix,
// as clientv3's WithPrefix makes them (the empty prefix is the key "\x00"
// and every key from it on).
func PrefixRange(prefix string) (key, end []byte) {
	if prefix == "" {
		return []byte{0}, mvcc.GteEnd
	}
	return []byte(prefix), mvcc.PrefixEnd([]byte(prefix))
}

// Put is a request to put value at key.
func Put(key, value string) Request {
	return Request{Put: &etcdserverpb.PutRequest{Key: []byte(key), Value: []byte(value)}}
}

// Get is a request for key: linearizable, or serializable.
func Get(key string, serializable bool) Request {
	return Request{Range: &etcdserverpb.RangeRequest{Key: []byte(key), Serializable: serializable}}
}

// GetPrefix is a request for every key with the prefix.
func GetPrefix(prefix string, serializable bool) Request {
	k, end := PrefixRange(prefix)
	return Request{Range: &etcdserverpb.RangeRequest{Key: k, RangeEnd: end, Serializable: serializable}}
}

// Delete is a request to delete key.
func Delete(key string) Request {
	return Request{DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: []byte(key)}}
}

// DeletePrefix is a request to delete every key with the prefix.
func DeletePrefix(prefix string) Request {
	k, end := PrefixRange(prefix)
	return Request{DeleteRange: &etcdserverpb.DeleteRangeRequest{Key: k, RangeEnd: end}}
}

// Watch is a request to watch key from now on.
func Watch(key string) Request {
	return Request{Watch: &etcdserverpb.WatchCreateRequest{Key: []byte(key)}}
}

// WatchPrefix is a request to watch every key with the prefix from now on.
func WatchPrefix(prefix string) Request {
	k, end := PrefixRange(prefix)
	return Request{Watch: &etcdserverpb.WatchCreateRequest{Key: k, RangeEnd: end}}
}

// Copy returns a request whose set field is a copy of r's, so that its
// numbers (a revision, a lease) can be changed; the bytes and the nested
// requests it holds are shared.
func (r Request) Copy() Request {
	switch x := r.Message().(type) {
	case *etcdserverpb.RangeRequest:
		c := *x
		return Request{Range: &c, Token: r.Token}
	case *etcdserverpb.PutRequest:
		c := *x
		return Request{Put: &c, Token: r.Token}
	case *etcdserverpb.DeleteRangeRequest:
		c := *x
		return Request{DeleteRange: &c, Token: r.Token}
	case *etcdserverpb.TxnRequest:
		c := *x
		return Request{Txn: &c, Token: r.Token}
	case *etcdserverpb.CompactionRequest:
		c := *x
		return Request{Compaction: &c, Token: r.Token}
	case *etcdserverpb.LeaseGrantRequest:
		c := *x
		return Request{LeaseGrant: &c, Token: r.Token}
	case *etcdserverpb.LeaseRevokeRequest:
		c := *x
		return Request{LeaseRevoke: &c, Token: r.Token}
	case *etcdserverpb.LeaseKeepAliveRequest:
		c := *x
		return Request{LeaseKeepAlive: &c, Token: r.Token}
	case *etcdserverpb.LeaseTimeToLiveRequest:
		c := *x
		return Request{LeaseTimeToLive: &c, Token: r.Token}
	case *etcdserverpb.LeaseLeasesRequest:
		c := *x
		return Request{LeaseLeases: &c, Token: r.Token}
	case *etcdserverpb.WatchCreateRequest:
		c := *x
		return Request{Watch: &c, Token: r.Token}
	case *etcdserverpb.MemberListRequest:
		c := *x
		return Request{MemberList: &c, Token: r.Token}
	case *etcdserverpb.InternalRaftRequest:
		c := *x
		return Request{Auth: &c, Token: r.Token}
	}
	return Request{}
}

// setAuthHeader sets an Auth service response's header.
func setAuthHeader(resp any, h *etcdserverpb.ResponseHeader) {
	switch x := resp.(type) {
	case *etcdserverpb.AuthEnableResponse:
		x.Header = h
	case *etcdserverpb.AuthDisableResponse:
		x.Header = h
	case *etcdserverpb.AuthStatusResponse:
		x.Header = h
	case *etcdserverpb.AuthenticateResponse:
		x.Header = h
	case *etcdserverpb.AuthUserAddResponse:
		x.Header = h
	case *etcdserverpb.AuthUserDeleteResponse:
		x.Header = h
	case *etcdserverpb.AuthUserGetResponse:
		x.Header = h
	case *etcdserverpb.AuthUserChangePasswordResponse:
		x.Header = h
	case *etcdserverpb.AuthUserGrantRoleResponse:
		x.Header = h
	case *etcdserverpb.AuthUserRevokeRoleResponse:
		x.Header = h
	case *etcdserverpb.AuthUserListResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleListResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleAddResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleDeleteResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleGetResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleGrantPermissionResponse:
		x.Header = h
	case *etcdserverpb.AuthRoleRevokePermissionResponse:
		x.Header = h
	}
}
