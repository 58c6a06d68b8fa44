package mvcc

import (
	"bytes"
	"cmp"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// Txn applies a transaction, as etcd's apply layer does (txn.Txn): the
// compares choose the branch, the branch's requests are checked, then run
// in one write transaction, so that all its writes share one revision. A
// transaction that writes nothing leaves the revision alone.
func (s *Store) Txn(r *pb.TxnRequest) (*pb.TxnResponse, []mvccpb.Event, error) {
	path := s.compareToPath(r)
	if _, err := s.checkTxn(r, path); err != nil {
		return nil, nil, err
	}
	tw := s.write()
	resp, _ := newTxnResp(r, path)
	if _, err := tw.executeTxn(r, path, resp); err != nil {
		// NB: etcd panics here for a transaction that writes: its checks
		// above guarantee no request fails.
		panic("mvcc: a checked transaction failed: " + err.Error())
	}
	resp.Header.Revision = tw.rev()
	return resp, tw.end(), nil
}

func newTxnResp(r *pb.TxnRequest, path []bool) (*pb.TxnResponse, int) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	resp := &pb.TxnResponse{Header: &pb.ResponseHeader{}, Succeeded: path[0], Responses: make([]*pb.ResponseOp, len(reqs))}
	count := 0
	for i, req := range reqs {
		resp.Responses[i] = &pb.ResponseOp{}
		if t := req.GetRequestTxn(); t != nil {
			sub, n := newTxnResp(t, path[1:])
			resp.Responses[i].Response = &pb.ResponseOp_ResponseTxn{ResponseTxn: sub}
			path = path[1+n:]
			count += n + 1
		}
	}
	return resp, count
}

func (tw *writeTxn) executeTxn(r *pb.TxnRequest, path []bool, resp *pb.TxnResponse) (int, error) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	txns := 0
	for i, req := range reqs {
		out := resp.Responses[i]
		switch tv := req.Request.(type) {
		case *pb.RequestOp_RequestRange:
			rr, err := tw.s.executeRange(tv.RequestRange, tw.rev())
			if err != nil {
				return 0, err
			}
			out.Response = &pb.ResponseOp_ResponseRange{ResponseRange: rr}
		case *pb.RequestOp_RequestPut:
			pr, err := tw.applyPut(tv.RequestPut)
			if err != nil {
				return 0, err
			}
			out.Response = &pb.ResponseOp_ResponsePut{ResponsePut: pr}
		case *pb.RequestOp_RequestDeleteRange:
			out.Response = &pb.ResponseOp_ResponseDeleteRange{ResponseDeleteRange: tw.applyDeleteRange(tv.RequestDeleteRange)}
		case *pb.RequestOp_RequestTxn:
			n, err := tw.executeTxn(tv.RequestTxn, path[1:], out.GetResponseTxn())
			if err != nil {
				return 0, err
			}
			txns += n + 1
			path = path[n+1:]
		}
	}
	return txns, nil
}

func (s *Store) checkTxn(r *pb.TxnRequest, path []bool) (int, error) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	count := 0
	for _, req := range reqs {
		var err error
		switch tv := req.Request.(type) {
		case *pb.RequestOp_RequestRange:
			switch rev := tv.RequestRange.Revision; {
			case rev == 0:
			case rev > s.currentRev:
				err = ErrFutureRev
			case rev < s.FirstRev():
				err = ErrCompacted
			}
		case *pb.RequestOp_RequestPut:
			// NB: the key before the lease, as etcd's checkPut (a put
			// outside a txn checks the lease first).
			p := tv.RequestPut
			if p.IgnoreValue || p.IgnoreLease {
				if kvs, _, _, _ := s.rangeKeys(p.Key, nil, s.currentRev, 0, 0, false); len(kvs) == 0 {
					err = ErrKeyNotFound
					break
				}
			}
			if p.Lease != 0 && (s.lessor == nil || !s.lessor.Exists(p.Lease)) {
				err = ErrLeaseNotFound
			}
		case *pb.RequestOp_RequestTxn:
			var n int
			n, err = s.checkTxn(tv.RequestTxn, path[1:])
			count += n + 1
			path = path[n+1:]
		}
		if err != nil {
			return 0, err
		}
	}
	return count, nil
}

// compareToPath evaluates the compares of r and of the transactions nested
// in the branch they choose: one bool per transaction, depth first.
func (s *Store) compareToPath(r *pb.TxnRequest) []bool {
	path := []bool{s.applyCompares(r.Compare)}
	ops := r.Success
	if !path[0] {
		ops = r.Failure
	}
	for _, op := range ops {
		if t := op.GetRequestTxn(); t != nil {
			path = append(path, s.compareToPath(t)...)
		}
	}
	return path
}

func (s *Store) applyCompares(cmps []*pb.Compare) bool {
	for _, c := range cmps {
		if !s.applyCompare(c) {
			return false
		}
	}
	return true
}

// applyCompare holds when it holds for every key in its range. A missing
// key has version, revisions and lease 0; a value compare on a missing key
// always fails, as in etcd (gRPC cannot tell a missing value from "").
func (s *Store) applyCompare(c *pb.Compare) bool {
	kvs, _, _, err := s.rangeKeys(c.Key, c.RangeEnd, s.currentRev, 0, 0, false)
	if err != nil {
		return false
	}
	if len(kvs) == 0 {
		if c.Target == pb.Compare_VALUE {
			return false
		}
		return compareKV(c, &mvccpb.KeyValue{})
	}
	for i := range kvs {
		if !compareKV(c, &kvs[i]) {
			return false
		}
	}
	return true
}

func compareKV(c *pb.Compare, kv *mvccpb.KeyValue) bool {
	var result int
	switch c.Target {
	case pb.Compare_VALUE:
		result = bytes.Compare(kv.Value, c.GetValue())
	case pb.Compare_CREATE:
		result = cmp.Compare(kv.CreateRevision, c.GetCreateRevision())
	case pb.Compare_MOD:
		result = cmp.Compare(kv.ModRevision, c.GetModRevision())
	case pb.Compare_VERSION:
		result = cmp.Compare(kv.Version, c.GetVersion())
	case pb.Compare_LEASE:
		result = cmp.Compare(kv.Lease, c.GetLease())
	}
	switch c.Result {
	case pb.Compare_EQUAL:
		return result == 0
	case pb.Compare_NOT_EQUAL:
		return result != 0
	case pb.Compare_GREATER:
		return result > 0
	case pb.Compare_LESS:
		return result < 0
	}
	return true
}

// IsReadOnly reports whether the transaction writes nothing in either
// branch, as etcd's IsTxnReadonly: such a transaction is served like a
// read, without raft, when it is serializable.
func IsReadOnly(r *pb.TxnRequest) bool {
	for _, ops := range [][]*pb.RequestOp{r.Success, r.Failure} {
		for _, op := range ops {
			switch tv := op.Request.(type) {
			case *pb.RequestOp_RequestPut, *pb.RequestOp_RequestDeleteRange:
				return false
			case *pb.RequestOp_RequestTxn:
				if !IsReadOnly(tv.RequestTxn) {
					return false
				}
			}
		}
	}
	return true
}

// ValidateTxn checks a transaction as etcd's gRPC layer does before it
// proposes one (checkTxnRequest, checkIntervals): at most MaxTxnOps
// requests in a branch, no key given empty, and no key written twice.
func ValidateTxn(r *pb.TxnRequest) error { return validateTxn(r, MaxTxnOps) }

// validateTxn is etcd's checkTxnRequest with the --max-txn-ops left to
// it: a level may have as many compares, and as many operations in each
// branch, as its budget, and a transaction nested in it has the budget
// less the level's largest count. So nesting is bounded too: a chain of
// one-operation transactions may be 128 deep, not 129.
func validateTxn(r *pb.TxnRequest, budget int) error {
	opc := max(len(r.Compare), len(r.Success), len(r.Failure))
	if opc > budget {
		return ErrTooManyOps
	}
	for _, c := range r.Compare {
		if len(c.Key) == 0 {
			return ErrEmptyKey
		}
	}
	for _, ops := range [][]*pb.RequestOp{r.Success, r.Failure} {
		for _, op := range ops {
			if err := validateOp(op, budget-opc); err != nil {
				return err
			}
		}
	}
	if _, _, err := checkIntervals(r.Success); err != nil {
		return err
	}
	_, _, err := checkIntervals(r.Failure)
	return err
}

func validateOp(op *pb.RequestOp, budget int) error {
	switch tv := op.Request.(type) {
	case *pb.RequestOp_RequestRange:
		if len(tv.RequestRange.Key) == 0 {
			return ErrEmptyKey
		}
	case *pb.RequestOp_RequestPut:
		return ValidatePut(tv.RequestPut)
	case *pb.RequestOp_RequestDeleteRange:
		if len(tv.RequestDeleteRange.Key) == 0 {
			return ErrEmptyKey
		}
	case *pb.RequestOp_RequestTxn:
		return validateTxn(tv.RequestTxn, budget)
	default:
		return ErrKeyNotFound // etcd's answer to an empty operation
	}
	return nil
}

// ValidatePut checks a put as etcd's gRPC layer does (checkPutRequest): a
// key, and no value with ignore_value nor lease with ignore_lease.
func ValidatePut(p *pb.PutRequest) error {
	switch {
	case len(p.Key) == 0:
		return ErrEmptyKey
	case p.IgnoreValue && len(p.Value) != 0:
		return ErrValueProvided
	case p.IgnoreLease && p.Lease != 0:
		return ErrLeaseProvided
	}
	return nil
}

// interval is a key range [key, end); end empty is the key alone.
type interval struct{ key, end []byte }

// contains is etcd's interval tree test for a put's key. NB: etcd builds
// the interval from the request's bytes, so a --from-key delete (end
// GteEnd, "\x00") is the interval [key, "\x00"), which holds no key: a
// real etcd v3.6.16 accepts `del a --from-key` and `put b` in one txn.
func (iv interval) contains(k []byte) bool {
	if len(iv.end) == 0 {
		return bytes.Equal(k, iv.key)
	}
	return bytes.Compare(k, iv.key) >= 0 && bytes.Compare(k, iv.end) < 0
}

// checkIntervals refuses a branch that puts a key twice, or puts a key
// that it also deletes, counting nested transactions' branches.
func checkIntervals(reqs []*pb.RequestOp) (map[string]bool, []interval, error) {
	var dels []interval
	for _, req := range reqs {
		if d := req.GetRequestDeleteRange(); d != nil {
			dels = append(dels, interval{d.Key, d.RangeEnd})
		}
	}
	deleted := func(k []byte) bool {
		for _, iv := range dels {
			if iv.contains(k) {
				return true
			}
		}
		return false
	}
	puts := map[string]bool{}
	for _, req := range reqs {
		t := req.GetRequestTxn()
		if t == nil {
			continue
		}
		putsThen, delsThen, err := checkIntervals(t.Success)
		if err != nil {
			return nil, nil, err
		}
		putsElse, delsElse, err := checkIntervals(t.Failure)
		if err != nil {
			return nil, nil, err
		}
		for _, branch := range []map[string]bool{putsThen, putsElse} {
			for k := range branch {
				if puts[k] || deleted([]byte(k)) {
					return nil, nil, ErrDuplicateKey
				}
			}
		}
		for k := range putsThen {
			puts[k] = true
		}
		for k := range putsElse {
			puts[k] = true
		}
		dels = append(dels, delsThen...)
		dels = append(dels, delsElse...)
	}
	for _, req := range reqs {
		if p := req.GetRequestPut(); p != nil {
			if puts[string(p.Key)] || deleted(p.Key) {
				return nil, nil, ErrDuplicateKey
			}
			puts[string(p.Key)] = true
		}
	}
	return puts, dels, nil
}
