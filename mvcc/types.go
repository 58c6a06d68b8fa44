package mvcc

// KeyValue mirrors mvccpb.KeyValue: a key at one revision.
type KeyValue struct {
	Key            string
	CreateRevision int64 // the revision of the put that created the key (since its last delete)
	ModRevision    int64 // the revision of the last change to the key
	Version        int64 // how many puts since it was created; a delete resets it to 0
	Value          string
	Lease          int64 // the lease the key is attached to, 0 for none
}

// EventType mirrors mvccpb.Event_EventType.
type EventType int32

// The event types, numbered as mvccpb numbers them.
const (
	PUT    EventType = 0
	DELETE EventType = 1
)

func (t EventType) String() string {
	if t == DELETE {
		return "DELETE"
	}
	return "PUT"
}

// Event mirrors mvccpb.Event: one change, as a watch delivers it. For a
// DELETE, Kv holds only the key and the deletion's ModRevision.
type Event struct {
	Type   EventType
	Kv     *KeyValue
	PrevKv *KeyValue // the key before the change, for watches that ask for it
}

// IsCreate reports whether the event created its key, as etcd's
// Event.IsCreate does.
func (e *Event) IsCreate() bool { return e.Type == PUT && e.Kv.Version == 1 }

// ResponseHeader mirrors etcdserverpb.ResponseHeader. The store fills in
// Revision; the server layer fills in the rest.
type ResponseHeader struct {
	ClusterId uint64
	MemberId  uint64
	Revision  int64
	RaftTerm  uint64
}

// SortOrder mirrors RangeRequest_SortOrder.
type SortOrder int32

// The sort orders.
const (
	SortNone SortOrder = iota
	SortAscend
	SortDescend
)

// SortTarget mirrors RangeRequest_SortTarget.
type SortTarget int32

// The sort targets.
const (
	SortByKey SortTarget = iota
	SortByVersion
	SortByCreate
	SortByMod
	SortByValue
)

// RangeRequest mirrors etcdserverpb.RangeRequest. RangeEnd "" reads one
// key; "\x00" reads every key >= Key; otherwise [Key, RangeEnd).
type RangeRequest struct {
	Key               string
	RangeEnd          string
	Limit             int64
	Revision          int64 // 0: the current revision
	SortOrder         SortOrder
	SortTarget        SortTarget
	Serializable      bool
	KeysOnly          bool
	CountOnly         bool
	MinModRevision    int64
	MaxModRevision    int64
	MinCreateRevision int64
	MaxCreateRevision int64
}

// RangeResponse mirrors etcdserverpb.RangeResponse.
type RangeResponse struct {
	Header ResponseHeader
	Kvs    []*KeyValue
	More   bool
	Count  int64
}

// PutRequest mirrors etcdserverpb.PutRequest.
type PutRequest struct {
	Key         string
	Value       string
	Lease       int64
	PrevKv      bool
	IgnoreValue bool
	IgnoreLease bool
}

// PutResponse mirrors etcdserverpb.PutResponse.
type PutResponse struct {
	Header ResponseHeader
	PrevKv *KeyValue
}

// DeleteRangeRequest mirrors etcdserverpb.DeleteRangeRequest.
type DeleteRangeRequest struct {
	Key      string
	RangeEnd string
	PrevKv   bool
}

// DeleteRangeResponse mirrors etcdserverpb.DeleteRangeResponse.
type DeleteRangeResponse struct {
	Header  ResponseHeader
	Deleted int64
	PrevKvs []*KeyValue
}

// CompareResult mirrors Compare_CompareResult.
type CompareResult int32

// The comparisons.
const (
	CompareEqual CompareResult = iota
	CompareGreater
	CompareLess
	CompareNotEqual
)

// CompareTarget mirrors Compare_CompareTarget.
type CompareTarget int32

// What a comparison looks at.
const (
	TargetVersion CompareTarget = iota
	TargetCreate
	TargetMod
	TargetValue
	TargetLease
)

// Compare mirrors etcdserverpb.Compare. Of the target union, the field
// that Target names is used (Version, CreateRevision, ModRevision, Value
// or Lease).
type Compare struct {
	Result         CompareResult
	Target         CompareTarget
	Key            string
	RangeEnd       string
	Version        int64
	CreateRevision int64
	ModRevision    int64
	Value          string
	Lease          int64
}

// RequestOp mirrors etcdserverpb.RequestOp: exactly one field is set.
type RequestOp struct {
	RequestRange       *RangeRequest
	RequestPut         *PutRequest
	RequestDeleteRange *DeleteRangeRequest
	RequestTxn         *TxnRequest
}

// ResponseOp mirrors etcdserverpb.ResponseOp: the field of the request's
// kind is set.
type ResponseOp struct {
	ResponseRange       *RangeResponse
	ResponsePut         *PutResponse
	ResponseDeleteRange *DeleteRangeResponse
	ResponseTxn         *TxnResponse
}

// TxnRequest mirrors etcdserverpb.TxnRequest: if every Compare holds, the
// Success operations run, else the Failure ones, all at one revision.
type TxnRequest struct {
	Compare []*Compare
	Success []*RequestOp
	Failure []*RequestOp
}

// TxnResponse mirrors etcdserverpb.TxnResponse.
type TxnResponse struct {
	Header    ResponseHeader
	Succeeded bool
	Responses []*ResponseOp
}

// CompactionRequest mirrors etcdserverpb.CompactionRequest.
type CompactionRequest struct {
	Revision int64
	Physical bool
}

// CompactionResponse mirrors etcdserverpb.CompactionResponse.
type CompactionResponse struct {
	Header ResponseHeader
}
