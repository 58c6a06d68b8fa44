package mvcc

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
)

// TestStore runs the golden files in testdata: each command acts on one
// store and prints what etcd's store would answer.
//
//	put k v [lease=N] [prev]        del k [end=E|prefix] [prev]
//	get k [end=E|prefix|from] [rev=N] [limit=N] [count] [keys] [sort=TARGET,ORDER]
//	txn  (then lines: "cmp k mod|create|version|value|lease =|!=|<|> X", "then ...", "else ...")
//	compact N    changes N    restore (encode, decode, and go on with the copy)
func TestStore(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := New()
		leases := fakeLessor{}
		s.SetLessor(leases)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			var out strings.Builder
			switch d.Cmd {
			case "put":
				p := putReq(t, d.CmdArgs)
				resp, evs, err := s.Put(p)
				if err != nil {
					return "error: " + GRPCMessage(err) + "\n"
				}
				fmt.Fprintf(&out, "rev %d", resp.Header.Revision)
				if resp.PrevKv != nil {
					fmt.Fprintf(&out, " prev %s", fmtKV(resp.PrevKv))
				}
				out.WriteString("\n" + fmtEvents(evs))
			case "del":
				r := &pb.DeleteRangeRequest{Key: []byte(d.CmdArgs[0].Key)}
				r.RangeEnd, _ = rangeEnd(d.CmdArgs)
				r.PrevKv = d.HasArg("prev")
				resp, evs, _ := s.DeleteRange(r)
				fmt.Fprintf(&out, "rev %d deleted %d\n", resp.Header.Revision, resp.Deleted)
				for _, kv := range resp.PrevKvs {
					fmt.Fprintf(&out, "prev %s\n", fmtKV(kv))
				}
				out.WriteString(fmtEvents(evs))
			case "get":
				resp, err := s.Range(rangeReq(t, d.CmdArgs))
				if err != nil {
					return "error: " + GRPCMessage(err) + "\n"
				}
				out.WriteString(fmtRange(resp))
			case "txn":
				r := &pb.TxnRequest{}
				for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
					parseTxnLine(t, r, line)
				}
				if err := ValidateTxn(r); err != nil {
					return "invalid: " + err.Error() + "\n"
				}
				resp, evs, err := s.Txn(r)
				if err != nil {
					return "error: " + GRPCMessage(err) + "\n"
				}
				fmt.Fprintf(&out, "succeeded %v rev %d\n", resp.Succeeded, resp.Header.Revision)
				for _, ro := range resp.Responses {
					switch {
					case ro.GetResponseRange() != nil:
						out.WriteString("range: " + strings.ReplaceAll(fmtRange(ro.GetResponseRange()), "\n", "; ") + "\n")
					case ro.GetResponsePut() != nil:
						fmt.Fprintf(&out, "put: rev %d\n", ro.GetResponsePut().Header.Revision)
					case ro.GetResponseDeleteRange() != nil:
						fmt.Fprintf(&out, "del: deleted %d\n", ro.GetResponseDeleteRange().Deleted)
					}
				}
				out.WriteString(fmtEvents(evs))
			case "compact":
				rev, _ := strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
				resp, err := s.Compact(rev)
				if err != nil {
					return "error: " + GRPCMessage(err) + "\n"
				}
				fmt.Fprintf(&out, "rev %d compacted at %d; %d records, %d keys indexed\n", resp.Header.Revision, s.CompactRev(), s.backend.len(), s.index.len())
			case "changes":
				rev, _ := strconv.ParseInt(d.CmdArgs[0].Key, 10, 64)
				evs, err := s.Changes(rev)
				if err != nil {
					return "error: " + GRPCMessage(err) + "\n"
				}
				out.WriteString(fmtEvents(evs))
			case "restore":
				b := s.Encode()
				again := fakeLessor{}
				c, err := Decode(b, again)
				if err != nil {
					t.Fatal(err)
				}
				if string(c.Encode()) != string(b) {
					t.Fatalf("encode(decode(b)) != b")
				}
				s = c
				fmt.Fprintf(&out, "restored at rev %d (compacted %d); attached %v\n", s.Rev(), s.CompactRev(), again.attached())
			case "leases":
				out.WriteString(fmt.Sprintf("%v\n", leases.attached()))
			default:
				t.Fatalf("unknown command %q", d.Cmd)
			}
			return out.String()
		})
	})
}

type fakeLessor map[string]int64 // key → lease; lease 7 and 8 exist

func (f fakeLessor) Exists(id int64) bool        { return id == 7 || id == 8 }
func (f fakeLessor) Attach(id int64, key string) { f[key] = id }
func (f fakeLessor) Detach(id int64, key string) { delete(f, key) }
func (f fakeLessor) attached() string {
	var parts []string
	for _, k := range sortedKeys(f) {
		parts = append(parts, fmt.Sprintf("%s→%d", k, f[k]))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func sortedKeys(m map[string]int64) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks {
		for j := i + 1; j < len(ks); j++ {
			if ks[j] < ks[i] {
				ks[i], ks[j] = ks[j], ks[i]
			}
		}
	}
	return ks
}

func fmtKV(kv *mvccpb.KeyValue) string {
	s := fmt.Sprintf("%s=%q c%d m%d v%d", kv.Key, kv.Value, kv.CreateRevision, kv.ModRevision, kv.Version)
	if kv.Lease != 0 {
		s += fmt.Sprintf(" lease %d", kv.Lease)
	}
	return s
}

func fmtEvents(evs []mvccpb.Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintf(&b, "event %s %s", e.Type, fmtKV(e.Kv))
		if e.PrevKv != nil {
			fmt.Fprintf(&b, " (prev %s)", fmtKV(e.PrevKv))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func fmtRange(r *pb.RangeResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "header rev %d count %d more %v\n", r.Header.Revision, r.Count, r.More)
	for _, kv := range r.Kvs {
		b.WriteString(fmtKV(kv) + "\n")
	}
	return b.String()
}

func rangeEnd(args []datadriven.CmdArg) ([]byte, bool) {
	for _, a := range args {
		switch a.Key {
		case "end":
			return []byte(a.Vals[0]), true
		case "prefix":
			return PrefixEnd([]byte(args[0].Key)), true
		case "from":
			return GteEnd, true
		}
	}
	return nil, false
}

func intArg(t *testing.T, a datadriven.CmdArg) int64 {
	v, err := strconv.ParseInt(a.Vals[0], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func putReq(t *testing.T, args []datadriven.CmdArg) *pb.PutRequest {
	p := &pb.PutRequest{Key: []byte(args[0].Key), Value: []byte(args[1].Key)}
	for _, a := range args[2:] {
		switch a.Key {
		case "lease":
			p.Lease = intArg(t, a)
		case "prev":
			p.PrevKv = true
		case "ignore_value":
			p.IgnoreValue, p.Value = true, nil
		}
	}
	return p
}

func rangeReq(t *testing.T, args []datadriven.CmdArg) *pb.RangeRequest {
	r := &pb.RangeRequest{Key: []byte(args[0].Key)}
	r.RangeEnd, _ = rangeEnd(args)
	for _, a := range args[1:] {
		switch a.Key {
		case "rev":
			r.Revision = intArg(t, a)
		case "limit":
			r.Limit = intArg(t, a)
		case "count":
			r.CountOnly = true
		case "keys":
			r.KeysOnly = true
		case "sort":
			r.SortTarget = pb.RangeRequest_SortTarget(pb.RangeRequest_SortTarget_value[strings.ToUpper(a.Vals[0])])
			r.SortOrder = pb.RangeRequest_SortOrder(pb.RangeRequest_SortOrder_value[strings.ToUpper(a.Vals[1])])
		}
	}
	return r
}

// parseTxnLine reads one line of a txn: "cmp KEY TARGET OP VALUE", or
// "then|else put K V [ignore_value] [lease=N]", "then|else del K
// [prefix|from]", "then|else get K".
func parseTxnLine(t *testing.T, r *pb.TxnRequest, line string) {
	f := strings.Fields(line)
	switch f[0] {
	case "cmp":
		c := &pb.Compare{Key: []byte(f[1])}
		c.Result = map[string]pb.Compare_CompareResult{"=": pb.Compare_EQUAL, "!=": pb.Compare_NOT_EQUAL, "<": pb.Compare_LESS, ">": pb.Compare_GREATER}[f[3]]
		n, _ := strconv.ParseInt(f[4], 10, 64)
		switch f[2] {
		case "mod":
			c.Target, c.TargetUnion = pb.Compare_MOD, &pb.Compare_ModRevision{ModRevision: n}
		case "create":
			c.Target, c.TargetUnion = pb.Compare_CREATE, &pb.Compare_CreateRevision{CreateRevision: n}
		case "version":
			c.Target, c.TargetUnion = pb.Compare_VERSION, &pb.Compare_Version{Version: n}
		case "lease":
			c.Target, c.TargetUnion = pb.Compare_LEASE, &pb.Compare_Lease{Lease: n}
		case "value":
			c.Target, c.TargetUnion = pb.Compare_VALUE, &pb.Compare_Value{Value: []byte(f[4])}
		}
		r.Compare = append(r.Compare, c)
	case "then", "else":
		op := &pb.RequestOp{}
		switch f[1] {
		case "put":
			p := &pb.PutRequest{Key: []byte(f[2]), Value: []byte(f[3])}
			for _, flag := range f[4:] {
				switch {
				case flag == "ignore_value":
					p.IgnoreValue, p.Value = true, nil
				case strings.HasPrefix(flag, "lease="):
					p.Lease, _ = strconv.ParseInt(strings.TrimPrefix(flag, "lease="), 10, 64)
				}
			}
			op.Request = &pb.RequestOp_RequestPut{RequestPut: p}
		case "del":
			d := &pb.DeleteRangeRequest{Key: []byte(f[2])}
			if len(f) > 3 {
				d.RangeEnd, _ = rangeEnd([]datadriven.CmdArg{{Key: f[2]}, {Key: f[3]}})
			}
			op.Request = &pb.RequestOp_RequestDeleteRange{RequestDeleteRange: d}
		case "get":
			op.Request = &pb.RequestOp_RequestRange{RequestRange: &pb.RangeRequest{Key: []byte(f[2])}}
		}
		if f[0] == "then" {
			r.Success = append(r.Success, op)
		} else {
			r.Failure = append(r.Failure, op)
		}
	default:
		t.Fatalf("bad txn line %q", line)
	}
}

// ValidateTxn spends --max-txn-ops as etcd's checkTxnRequest does: each
// level of nesting has the budget its parent left, so a chain of
// one-operation transactions nests 128 deep and no deeper, a level of 100
// operations leaves 28 below it, and an empty operation is etcd's "key
// not found". (Seen to fail before the budget: 129 and 10,000 deep passed.)
func TestValidateTxnBudget(t *testing.T) {
	chain := func(depth, width int) *pb.TxnRequest {
		r := &pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte("k")}}}}}
		for range depth - 1 {
			var ops []*pb.RequestOp
			for i := range width {
				inner := r
				if i > 0 {
					inner = &pb.TxnRequest{}
				}
				ops = append(ops, &pb.RequestOp{Request: &pb.RequestOp_RequestTxn{RequestTxn: inner}})
			}
			r = &pb.TxnRequest{Success: ops}
		}
		return r
	}
	for _, tc := range []struct {
		depth, width int
		want         error
	}{
		{128, 1, nil}, {129, 1, ErrTooManyOps}, {10000, 1, ErrTooManyOps},
		// 128 at the top leave nothing for the operation in the first.
		{2, 100, nil}, {2, 128, ErrTooManyOps}, {2, 129, ErrTooManyOps},
	} {
		if err := ValidateTxn(chain(tc.depth, tc.width)); err != tc.want {
			t.Errorf("depth %d, width %d: %v, want %v", tc.depth, tc.width, err, tc.want)
		}
	}
	top := func(levels int) *pb.TxnRequest {
		r := chain(levels, 1)
		ops := []*pb.RequestOp{{Request: &pb.RequestOp_RequestTxn{RequestTxn: r}}}
		for range 99 {
			ops = append(ops, &pb.RequestOp{Request: &pb.RequestOp_RequestTxn{RequestTxn: &pb.TxnRequest{}}})
		}
		return &pb.TxnRequest{Success: ops}
	}
	if err := ValidateTxn(top(28)); err != nil {
		t.Errorf("100 operations over 28 levels: %v", err)
	}
	if err := ValidateTxn(top(29)); err != ErrTooManyOps {
		t.Errorf("100 operations over 29 levels: %v, want %v", err, ErrTooManyOps)
	}
	if err := ValidateTxn(&pb.TxnRequest{Success: []*pb.RequestOp{{}}}); err != ErrKeyNotFound {
		t.Errorf("an empty operation: %v, want %v", err, ErrKeyNotFound)
	}
}
