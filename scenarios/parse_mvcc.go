package scenarios

import (
	"math"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/server"
)

// request reads the keys of a client operation step into its request,
// in etcd's types (Step.Req): key, value, prefix, from_key, range_end,
// consistency, keys_only, rev (or rev_of), limit, count_only, sort_by,
// order, prev_kv, lease (a number, or the label of a lease_grant), ttl,
// keys, and a txn's if/then/else in etcdctl's syntax. Which keys a step
// takes is opKeys's business; here each goes into the field of its
// request.
func (p *parser) request(st *Step, f fields, v *yaml.Node) {
	what := st.Kind.String()
	r := &st.Req
	switch st.Kind {
	case StepPut:
		r.Put = &etcdserverpb.PutRequest{}
	case StepDelete:
		r.DeleteRange = &etcdserverpb.DeleteRangeRequest{}
	case StepGet:
		r.Range = &etcdserverpb.RangeRequest{Serializable: p.serializable(f)}
	case StepWatch:
		r.Watch = &etcdserverpb.WatchCreateRequest{}
	case StepTxn:
		r.Txn = &etcdserverpb.TxnRequest{}
	case StepCompact:
		r.Compaction = &etcdserverpb.CompactionRequest{}
	case StepLeaseGrant:
		r.LeaseGrant = &etcdserverpb.LeaseGrantRequest{}
	case StepLeaseRevoke:
		r.LeaseRevoke = &etcdserverpb.LeaseRevokeRequest{}
	case StepLeaseKeepAlive:
		r.LeaseKeepAlive = &etcdserverpb.LeaseKeepAliveRequest{}
	case StepLeaseTimeToLive:
		r.LeaseTimeToLive = &etcdserverpb.LeaseTimeToLiveRequest{}
	}
	p.keyRange(st, f, v)
	if st.Kind == StepPut {
		if x := f.get("value"); x == nil {
			p.errorf(p.pos(v), "put: missing value: (use delete: to remove a key)")
		} else if val, ok := p.str(x, "put value"); ok {
			r.Put.Value = []byte(val)
		}
	}
	if x := f.get("rev"); x != nil {
		rev, _ := p.integer(x, what+" rev", 1, math.MaxInt64)
		setRev(r, rev)
	}
	if x := f.get("rev_of"); x != nil {
		if f.get("rev") != nil {
			p.errorf(p.pos(x), "%s: give rev: or rev_of:, not both", what)
		}
		if l, ok := p.str(x, what+" rev_of"); ok {
			st.RevOf, st.RevOfPos = l, p.pos(x)
		}
	}
	if st.Kind == StepCompact && f.get("rev") == nil && f.get("rev_of") == nil {
		p.errorf(p.pos(v), "compact: missing rev: (the revision to compact at) or rev_of: (the label of an operation whose revision to use)")
	}
	if g := r.Range; g != nil {
		p.rangeKeys(g, f)
	}
	if x := f.get("prev_kv"); x != nil {
		on, _ := p.boolean(x, "prev_kv")
		switch {
		case r.Put != nil:
			r.Put.PrevKv = on
		case r.DeleteRange != nil:
			r.DeleteRange.PrevKv = on
		case r.Watch != nil:
			r.Watch.PrevKv = on
		}
	}
	if r.Put != nil {
		// put --ignore-value, --ignore-lease: the key keeps its value or
		// lease (a session holds them as the client sent them).
		if x := f.get("ignore_value"); x != nil {
			r.Put.IgnoreValue, _ = p.boolean(x, "ignore_value")
		}
		if x := f.get("ignore_lease"); x != nil {
			r.Put.IgnoreLease, _ = p.boolean(x, "ignore_lease")
		}
	}
	if x := f.get("progress_notify"); x != nil && r.Watch != nil {
		r.Watch.ProgressNotify, _ = p.boolean(x, "progress_notify")
	}
	if x := f.get("repeat"); x != nil {
		st.Repeat, _ = p.boolean(x, "repeat")
	}
	if x := f.get("keys"); x != nil {
		r.LeaseTimeToLive.Keys, _ = p.boolean(x, "keys")
	}
	if x := f.get("ttl"); x != nil {
		// etcd grants a TTL below its minimum (0, -5: clientv3 sends
		// it) with the minimum, through raft; a recorded session holds it
		// as it was sent.
		if ttl, ok := p.integer(x, "ttl", math.MinInt64, math.MaxInt64); ok && ttl > lease.MaxLeaseTTL {
			p.errorf(p.pos(x), "ttl: want a whole number from 1 to %d, found %d", lease.MaxLeaseTTL, ttl)
		} else {
			r.LeaseGrant.TTL = ttl
		}
	} else if st.Kind == StepLeaseGrant {
		p.errorf(p.pos(v), "lease_grant: missing ttl: (the lease's time to live in seconds, like 10)")
	}
	if x := f.get("lease"); x != nil {
		st.LeasePos = p.pos(x)
		if x.Kind == yaml.ScalarNode && x.ShortTag() == "!!int" {
			// Any ID: one that no lease has (0, -1) is answered as etcd
			// answers it, "requested lease not found".
			id, _ := p.integer(x, "lease", math.MinInt64, math.MaxInt64)
			setLease(r, id)
		} else if l, ok := p.str(x, "lease"); ok {
			st.LeaseLabel = l
		}
	} else if st.Kind == StepLeaseRevoke || st.Kind == StepLeaseKeepAlive || st.Kind == StepLeaseTimeToLive {
		p.errorf(p.pos(v), "%s: missing lease: (the label of a lease_grant, or a lease ID)", what)
	}
	if st.Kind == StepTxn {
		p.txn(r.Txn, f, v)
	}
}

// keyRange reads key, prefix, from_key and range_end into the request's
// key and range end, as etcdctl's --prefix and --from-key make them
// (clientv3's WithPrefix and WithFromKey).
func (p *parser) keyRange(st *Step, f fields, v *yaml.Node) {
	what := st.Kind.String()
	var prefix, fromKey bool
	if x := f.get("prefix"); x != nil {
		prefix, _ = p.boolean(x, "prefix")
	}
	if x := f.get("from_key"); x != nil {
		fromKey, _ = p.boolean(x, "from_key")
		if fromKey && prefix {
			p.errorf(p.pos(x), "%s: prefix and from_key cannot both be set, choose one", what)
		}
	}
	var key string
	if x := f.get("key"); x == nil && hasKey(st.Kind, "key") {
		p.errorf(p.pos(v), "%s: missing key: (like /registry/pods/default/nginx)", what)
	} else if x == nil {
		return
	} else if k, ok := p.str(x, what+" key"); ok {
		if k == "" && !prefix && !fromKey {
			p.errorf(p.pos(x), "%s: the key is empty", what)
		}
		key = k
	}
	var end []byte
	if x := f.get("range_end"); x != nil {
		if prefix || fromKey {
			p.errorf(p.pos(x), "%s: range_end goes with neither prefix nor from_key", what)
		}
		if e, ok := p.str(x, "range_end"); ok {
			if e == "" || e <= key {
				p.errorf(p.pos(x), "%s: range_end %q must come after the key %q", what, e, key)
			}
			end = []byte(e)
		}
	}
	k := []byte(key)
	switch {
	case prefix:
		k, end = server.PrefixRange(key)
	case fromKey:
		if key == "" {
			k = []byte{0}
		}
		end = mvcc.GteEnd
	}
	setKeyRange(&st.Req, k, end)
}

// rangeKeys reads what shapes a get's answer: keys_only, limit,
// count_only, sort_by and order.
func (p *parser) rangeKeys(g *etcdserverpb.RangeRequest, f fields) {
	if x := f.get("keys_only"); x != nil {
		g.KeysOnly, _ = p.boolean(x, "keys_only")
	}
	if x := f.get("sort_by"); x != nil {
		if t, ok := p.str(x, "sort_by"); ok {
			target, found := sortTargets[t]
			if !found {
				p.errorf(p.pos(x), "sort_by: want CREATE, KEY, MODIFY, VALUE or VERSION, found %q", t)
			}
			g.SortTarget = target
		}
	}
	if x := f.get("order"); x != nil {
		if o, ok := p.str(x, "order"); ok {
			switch o {
			case "ASCEND":
				g.SortOrder = etcdserverpb.RangeRequest_ASCEND
			case "DESCEND":
				g.SortOrder = etcdserverpb.RangeRequest_DESCEND
			default:
				p.errorf(p.pos(x), "order: want ASCEND or DESCEND, found %q", o)
			}
		}
	}
	if x := f.get("limit"); x != nil {
		g.Limit, _ = p.integer(x, "limit", 1, math.MaxInt64)
	}
	if x := f.get("count_only"); x != nil {
		g.CountOnly, _ = p.boolean(x, "count_only")
	}
	// get --min-mod-rev and the like: the keys whose mod or create
	// revision is in range.
	for _, r := range []struct {
		key string
		to  *int64
	}{{"min_mod_rev", &g.MinModRevision}, {"max_mod_rev", &g.MaxModRevision}, {"min_create_rev", &g.MinCreateRevision}, {"max_create_rev", &g.MaxCreateRevision}} {
		if x := f.get(r.key); x != nil {
			*r.to, _ = p.integer(x, r.key, 0, math.MaxInt64)
		}
	}
}

// sortTargets are sort_by's values, etcdctl's --sort-by names.
var sortTargets = map[string]etcdserverpb.RangeRequest_SortTarget{"CREATE": etcdserverpb.RangeRequest_CREATE,
	"KEY": etcdserverpb.RangeRequest_KEY, "MODIFY": etcdserverpb.RangeRequest_MOD,
	"VALUE": etcdserverpb.RangeRequest_VALUE, "VERSION": etcdserverpb.RangeRequest_VERSION}

// txn reads a txn's if, then and else, in etcdctl's syntax.
func (p *parser) txn(t *etcdserverpb.TxnRequest, f fields, v *yaml.Node) {
	p.txnBody(t, f, 0)
	if err := mvcc.ValidateTxn(t); err != nil {
		p.errorf(p.pos(v), "txn: %v", err)
	}
}

var txnBodyKeys = []string{"if", "then", "else"}

// txnBody reads if, then and else. An item of then or else is a line in
// etcdctl's txn syntax, or {txn: {if, then, else}}: a transaction nested
// there (etcd's RequestOp_RequestTxn), at most mvcc.MaxTxnOps deep, as
// etcd's --max-txn-ops budget bounds it.
func (p *parser) txnBody(t *etcdserverpb.TxnRequest, f fields, depth int) {
	if x := f.get("if"); x != nil {
		for _, line := range p.lines(x, "txn if") {
			c, err := etcdctl.ParseCompare(line.text)
			if err != nil {
				p.errorf(line.pos, "txn if: %v", err)
				continue
			}
			t.Compare = append(t.Compare, c)
		}
	}
	for _, branch := range []struct {
		key string
		ops *[]*etcdserverpb.RequestOp
	}{{"then", &t.Success}, {"else", &t.Failure}} {
		x := f.get(branch.key)
		if x == nil {
			continue
		}
		what := "txn " + branch.key
		items, ok := p.list(x, what, `a list of lines in etcdctl's txn syntax, like ["put /k v"], or {txn: {...}} for a nested transaction`)
		if !ok {
			continue
		}
		for _, it := range items {
			if it.Kind == yaml.MappingNode {
				nf := p.mapping(it, what+" item", []string{"txn"})
				body := nf.get("txn")
				if body == nil {
					p.errorf(p.pos(it), "%s: want {txn: {if: [...], then: [...], else: [...]}} for a nested transaction", what)
					continue
				}
				if depth+1 >= mvcc.MaxTxnOps {
					p.errorf(p.pos(it), "%s: transactions nested more than %d deep: etcd refuses them (too many operations in txn request)", what, mvcc.MaxTxnOps)
					continue
				}
				bf := p.mapping(body, "a nested txn", txnBodyKeys)
				nested := &etcdserverpb.TxnRequest{}
				if bf != nil {
					p.txnBody(nested, bf, depth+1)
				}
				*branch.ops = append(*branch.ops, &etcdserverpb.RequestOp{Request: &etcdserverpb.RequestOp_RequestTxn{RequestTxn: nested}})
				continue
			}
			s, ok := p.str(it, what)
			if !ok {
				continue
			}
			op, err := etcdctl.ParseRequest(s)
			if err != nil {
				p.errorf(p.pos(it), "%s: %v", what, err)
				continue
			}
			*branch.ops = append(*branch.ops, op)
		}
	}
}

// setKeyRange sets the key and range end of a get, put, delete or watch.
func setKeyRange(r *server.Request, key, end []byte) {
	switch {
	case r.Range != nil:
		r.Range.Key, r.Range.RangeEnd = key, end
	case r.Put != nil:
		r.Put.Key = key
	case r.DeleteRange != nil:
		r.DeleteRange.Key, r.DeleteRange.RangeEnd = key, end
	case r.Watch != nil:
		r.Watch.Key, r.Watch.RangeEnd = key, end
	}
}

// setRev sets the revision of a get (read at it), a watch (from it) or a
// compaction (at it).
func setRev(r *server.Request, rev int64) {
	switch {
	case r.Range != nil:
		r.Range.Revision = rev
	case r.Watch != nil:
		r.Watch.StartRevision = rev
	case r.Compaction != nil:
		r.Compaction.Revision = rev
	}
}

// setLease sets the lease a put attaches its key to, or the lease of a
// lease call.
func setLease(r *server.Request, id int64) {
	switch {
	case r.Put != nil:
		r.Put.Lease = id
	case r.LeaseRevoke != nil:
		r.LeaseRevoke.ID = id
	case r.LeaseKeepAlive != nil:
		r.LeaseKeepAlive.ID = id
	case r.LeaseTimeToLive != nil:
		r.LeaseTimeToLive.ID = id
	}
}

type line struct {
	text string
	pos  Pos
}

// lines reads a list of strings (a txn's compares or requests).
func (p *parser) lines(n *yaml.Node, what string) []line {
	items, ok := p.list(n, what, `a list of lines in etcdctl's txn syntax, like ['mod("/k") = "5"'] or ["put /k v"]`)
	if !ok {
		return nil
	}
	var out []line
	for _, it := range items {
		if s, ok := p.str(it, what); ok {
			out = append(out, line{s, p.pos(it)})
		}
	}
	return out
}
