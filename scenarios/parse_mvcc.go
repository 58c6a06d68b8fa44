package scenarios

import (
	"math"

	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/lease"
	"github.com/raftsim/raftsim/mvcc"
)

// mvccKeys reads the keys of the MVCC and lease extensions of an operation
// step: rev, rev_of, limit, count_only, prev_kv, lease, ttl, repeat, keys,
// and a txn's if/then/else.
func (p *parser) mvccKeys(st *Step, f fields, v *yaml.Node) {
	what := st.Kind.String()
	if x := f.get("rev"); x != nil {
		st.Rev, _ = p.integer(x, what+" rev", 1, math.MaxInt64)
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
	if x := f.get("range_end"); x != nil {
		if st.Prefix || st.FromKey {
			p.errorf(p.pos(x), "%s: range_end goes with neither prefix nor from_key", what)
		}
		if e, ok := p.str(x, "range_end"); ok {
			if e == "" || e <= st.Key {
				p.errorf(p.pos(x), "%s: range_end %q must come after the key %q", what, e, st.Key)
			}
			st.RangeEnd = e
		}
	}
	if x := f.get("sort_by"); x != nil {
		if t, ok := p.str(x, "sort_by"); ok {
			target, found := map[string]mvcc.SortTarget{"CREATE": mvcc.SortByCreate, "KEY": mvcc.SortByKey,
				"MODIFY": mvcc.SortByMod, "VALUE": mvcc.SortByValue, "VERSION": mvcc.SortByVersion}[t]
			if !found {
				p.errorf(p.pos(x), "sort_by: want CREATE, KEY, MODIFY, VALUE or VERSION, found %q", t)
			}
			st.SortTarget = target
		}
	}
	if x := f.get("order"); x != nil {
		if o, ok := p.str(x, "order"); ok {
			switch o {
			case "ASCEND":
				st.SortOrder = mvcc.SortAscend
			case "DESCEND":
				st.SortOrder = mvcc.SortDescend
			default:
				p.errorf(p.pos(x), "order: want ASCEND or DESCEND, found %q", o)
			}
		}
	}
	if x := f.get("limit"); x != nil {
		st.Limit, _ = p.integer(x, "limit", 1, math.MaxInt64)
	}
	if x := f.get("count_only"); x != nil {
		st.CountOnly, _ = p.boolean(x, "count_only")
	}
	if x := f.get("prev_kv"); x != nil {
		st.PrevKV, _ = p.boolean(x, "prev_kv")
	}
	if x := f.get("repeat"); x != nil {
		st.Repeat, _ = p.boolean(x, "repeat")
	}
	if x := f.get("keys"); x != nil {
		st.LeaseKeys, _ = p.boolean(x, "keys")
	}
	if x := f.get("ttl"); x != nil {
		st.TTL, _ = p.integer(x, "ttl", 1, lease.MaxLeaseTTL)
	} else if st.Kind == StepLeaseGrant {
		p.errorf(p.pos(v), "lease_grant: missing ttl: (the lease's time to live in seconds, like 10)")
	}
	if x := f.get("lease"); x != nil {
		st.LeasePos = p.pos(x)
		if x.Kind == yaml.ScalarNode && x.ShortTag() == "!!int" {
			st.LeaseID, _ = p.integer(x, "lease", 1, math.MaxInt64)
		} else if l, ok := p.str(x, "lease"); ok {
			st.LeaseLabel = l
		}
	} else if st.Kind == StepLeaseRevoke || st.Kind == StepLeaseKeepAlive || st.Kind == StepLeaseTimeToLive {
		p.errorf(p.pos(v), "%s: missing lease: (the label of a lease_grant, or a lease ID)", what)
	}
	if st.Kind == StepTxn {
		st.Txn = &mvcc.TxnRequest{}
		if x := f.get("if"); x != nil {
			for _, line := range p.lines(x, "txn if") {
				c, err := etcdctl.ParseCompare(line.text)
				if err != nil {
					p.errorf(line.pos, "txn if: %v", err)
					continue
				}
				st.Txn.Compare = append(st.Txn.Compare, c)
			}
		}
		for _, branch := range []struct {
			key string
			ops *[]*mvcc.RequestOp
		}{{"then", &st.Txn.Success}, {"else", &st.Txn.Failure}} {
			x := f.get(branch.key)
			if x == nil {
				continue
			}
			for _, line := range p.lines(x, "txn "+branch.key) {
				op, err := etcdctl.ParseRequest(line.text)
				if err != nil {
					p.errorf(line.pos, "txn %s: %v", branch.key, err)
					continue
				}
				*branch.ops = append(*branch.ops, op)
			}
		}
		if err := mvcc.ValidateTxn(st.Txn); err != nil {
			p.errorf(p.pos(v), "txn: %v", err)
		}
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
