package mvcc

import "strings"

// Txn applies a transaction, as etcd's apply layer does (txn.Txn): the
// compares choose the branch, the branch's requests are checked, then run
// in one write transaction, so that all its writes share one revision. A
// transaction that writes nothing leaves the revision alone.
func (s *Store) Txn(r *TxnRequest) (*TxnResponse, []Event, error) {
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

func newTxnResp(r *TxnRequest, path []bool) (*TxnResponse, int) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	resp := &TxnResponse{Succeeded: path[0], Responses: make([]*ResponseOp, len(reqs))}
	count := 0
	for i, req := range reqs {
		resp.Responses[i] = &ResponseOp{}
		if req.RequestTxn != nil {
			sub, n := newTxnResp(req.RequestTxn, path[1:])
			resp.Responses[i].ResponseTxn = sub
			path = path[1+n:]
			count += n + 1
		}
	}
	return resp, count
}

func (tw *writeTxn) executeTxn(r *TxnRequest, path []bool, resp *TxnResponse) (int, error) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	txns := 0
	for i, req := range reqs {
		out := resp.Responses[i]
		switch {
		case req.RequestRange != nil:
			rr, err := tw.s.executeRange(req.RequestRange, tw.rev())
			if err != nil {
				return 0, err
			}
			out.ResponseRange = rr
		case req.RequestPut != nil:
			pr, err := tw.applyPut(req.RequestPut)
			if err != nil {
				return 0, err
			}
			out.ResponsePut = pr
		case req.RequestDeleteRange != nil:
			out.ResponseDeleteRange = tw.applyDeleteRange(req.RequestDeleteRange)
		case req.RequestTxn != nil:
			n, err := tw.executeTxn(req.RequestTxn, path[1:], out.ResponseTxn)
			if err != nil {
				return 0, err
			}
			txns += n + 1
			path = path[n+1:]
		}
	}
	return txns, nil
}

func (s *Store) checkTxn(r *TxnRequest, path []bool) (int, error) {
	reqs := r.Success
	if !path[0] {
		reqs = r.Failure
	}
	count := 0
	for _, req := range reqs {
		var err error
		switch {
		case req.RequestRange != nil:
			switch rev := req.RequestRange.Revision; {
			case rev == 0:
			case rev > s.currentRev:
				err = ErrFutureRev
			case rev < s.FirstRev():
				err = ErrCompacted
			}
		case req.RequestPut != nil:
			// NB: the key before the lease, as etcd's checkPut (a put
			// outside a txn checks the lease first).
			p := req.RequestPut
			if p.IgnoreValue || p.IgnoreLease {
				if kvs, _, _, _ := s.rangeKeys(p.Key, "", s.currentRev, 0, 0, false); len(kvs) == 0 {
					err = ErrKeyNotFound
					break
				}
			}
			if p.Lease != 0 && (s.lessor == nil || !s.lessor.Exists(p.Lease)) {
				err = ErrLeaseNotFound
			}
		case req.RequestTxn != nil:
			var n int
			n, err = s.checkTxn(req.RequestTxn, path[1:])
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
func (s *Store) compareToPath(r *TxnRequest) []bool {
	path := []bool{s.applyCompares(r.Compare)}
	ops := r.Success
	if !path[0] {
		ops = r.Failure
	}
	for _, op := range ops {
		if op.RequestTxn != nil {
			path = append(path, s.compareToPath(op.RequestTxn)...)
		}
	}
	return path
}

func (s *Store) applyCompares(cmps []*Compare) bool {
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
func (s *Store) applyCompare(c *Compare) bool {
	kvs, _, _, err := s.rangeKeys(c.Key, c.RangeEnd, s.currentRev, 0, 0, false)
	if err != nil {
		return false
	}
	if len(kvs) == 0 {
		if c.Target == TargetValue {
			return false
		}
		return compareKV(c, &KeyValue{})
	}
	for i := range kvs {
		if !compareKV(c, &kvs[i]) {
			return false
		}
	}
	return true
}

func compareKV(c *Compare, kv *KeyValue) bool {
	var result int
	switch c.Target {
	case TargetValue:
		result = strings.Compare(kv.Value, c.Value)
	case TargetCreate:
		result = compareInt64(kv.CreateRevision, c.CreateRevision)
	case TargetMod:
		result = compareInt64(kv.ModRevision, c.ModRevision)
	case TargetVersion:
		result = compareInt64(kv.Version, c.Version)
	case TargetLease:
		result = compareInt64(kv.Lease, c.Lease)
	}
	switch c.Result {
	case CompareEqual:
		return result == 0
	case CompareNotEqual:
		return result != 0
	case CompareGreater:
		return result > 0
	case CompareLess:
		return result < 0
	}
	return true
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// IsReadOnly reports whether the transaction writes nothing in either
// branch, as etcd's IsTxnReadonly: such a transaction is served like a
// read, without raft, when it is serializable.
func IsReadOnly(r *TxnRequest) bool {
	for _, ops := range [][]*RequestOp{r.Success, r.Failure} {
		for _, op := range ops {
			if op.RequestPut != nil || op.RequestDeleteRange != nil || op.RequestTxn != nil && !IsReadOnly(op.RequestTxn) {
				return false
			}
		}
	}
	return true
}

// ValidateTxn checks a transaction as etcd's gRPC layer does before it
// proposes one (checkTxnRequest, checkIntervals): at most MaxTxnOps
// requests in a branch, no key given empty, and no key written twice.
func ValidateTxn(r *TxnRequest) error {
	if len(r.Compare) > MaxTxnOps || len(r.Success) > MaxTxnOps || len(r.Failure) > MaxTxnOps {
		return ErrTooManyOps
	}
	for _, c := range r.Compare {
		if c.Key == "" {
			return ErrEmptyKey
		}
	}
	for _, ops := range [][]*RequestOp{r.Success, r.Failure} {
		for _, op := range ops {
			if err := validateOp(op); err != nil {
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

func validateOp(op *RequestOp) error {
	switch {
	case op.RequestRange != nil:
		if op.RequestRange.Key == "" {
			return ErrEmptyKey
		}
	case op.RequestPut != nil:
		p := op.RequestPut
		if p.Key == "" {
			return ErrEmptyKey
		}
		if p.IgnoreValue && p.Value != "" {
			return ErrValueProvided
		}
		if p.IgnoreLease && p.Lease != 0 {
			return ErrLeaseProvided
		}
	case op.RequestDeleteRange != nil:
		if op.RequestDeleteRange.Key == "" {
			return ErrEmptyKey
		}
	case op.RequestTxn != nil:
		return ValidateTxn(op.RequestTxn)
	}
	return nil
}

// interval is a key range [key, end); end "" is the key alone.
type interval struct{ key, end string }

// contains is etcd's interval tree test for a put's key. NB: etcd builds
// the interval from the request's bytes, so a --from-key delete (end
// GteEnd, "\x00") is the interval [key, "\x00"), which holds no key: a
// real etcd v3.6.16 accepts `del a --from-key` and `put b` in one txn.
func (iv interval) contains(k string) bool {
	if iv.end == "" {
		return k == iv.key
	}
	return k >= iv.key && k < iv.end
}

// checkIntervals refuses a branch that puts a key twice, or puts a key
// that it also deletes, counting nested transactions' branches.
func checkIntervals(reqs []*RequestOp) (map[string]bool, []interval, error) {
	var dels []interval
	for _, req := range reqs {
		if d := req.RequestDeleteRange; d != nil {
			dels = append(dels, interval{d.Key, d.RangeEnd})
		}
	}
	deleted := func(k string) bool {
		for _, iv := range dels {
			if iv.contains(k) {
				return true
			}
		}
		return false
	}
	puts := map[string]bool{}
	for _, req := range reqs {
		if req.RequestTxn == nil {
			continue
		}
		putsThen, delsThen, err := checkIntervals(req.RequestTxn.Success)
		if err != nil {
			return nil, nil, err
		}
		putsElse, delsElse, err := checkIntervals(req.RequestTxn.Failure)
		if err != nil {
			return nil, nil, err
		}
		for _, branch := range []map[string]bool{putsThen, putsElse} {
			for k := range branch {
				if puts[k] || deleted(k) {
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
		if p := req.RequestPut; p != nil {
			if puts[p.Key] || deleted(p.Key) {
				return nil, nil, ErrDuplicateKey
			}
			puts[p.Key] = true
		}
	}
	return puts, dels, nil
}
