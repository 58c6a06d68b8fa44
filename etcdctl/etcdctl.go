// Package etcdctl reads and writes etcdctl's request syntax: the put, get
// and del command lines with their flags, and the compare lines of `txn`,
// as etcdctl v3.6 reads them (ctlv3/command: get_command.go, put_command.go,
// del_command.go, txn_command.go), with its error messages. The console
// and the scenario format's txn step both use it, so that a transaction
// reads the same in both.
package etcdctl

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	pb "go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/mvcc"
)

// argsRegexp is etcdctl's: quoted words keep their spaces.
var argsRegexp = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'[^']*'|[^'"\s]\S*[^'"\s]?`)

// Argify splits a line into words as etcdctl's Argify does.
func Argify(s string) ([]string, error) {
	args := argsRegexp.FindAllString(s, -1)
	for i := range args {
		switch {
		case len(args[i]) == 0:
		case args[i][0] == '\'':
			args[i] = args[i][1 : len(args[i])-1]
		case args[i][0] == '"':
			if _, err := fmt.Sscanf(args[i], "%q", &args[i]); err != nil {
				return nil, err
			}
		}
	}
	return args, nil
}

// GetFlags are etcdctl get's request flags.
type GetFlags struct {
	Consistency, Order, SortBy string
	Limit, Rev                 int64
	Prefix, FromKey            bool
	KeysOnly, CountOnly        bool
	MinCreateRev, MaxCreateRev int64
	MinModRev, MaxModRev       int64
}

// Bind adds the flags to fs.
func (g *GetFlags) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&g.Consistency, "consistency", "l", "Linearizable(l) or Serializable(s)")
	fs.StringVar(&g.Order, "order", "", "Order of results; ASCEND or DESCEND (ASCEND by default)")
	fs.StringVar(&g.SortBy, "sort-by", "", "Sort target; CREATE, KEY, MODIFY, VALUE, or VERSION")
	fs.Int64Var(&g.Limit, "limit", 0, "Maximum number of results")
	fs.BoolVar(&g.Prefix, "prefix", false, "Get keys with matching prefix")
	fs.BoolVar(&g.FromKey, "from-key", false, "Get keys that are greater than or equal to the given key using byte compare")
	fs.Int64Var(&g.Rev, "rev", 0, "Specify the kv revision")
	fs.BoolVar(&g.KeysOnly, "keys-only", false, "Get only the keys")
	fs.BoolVar(&g.CountOnly, "count-only", false, "Get only the count")
	fs.Int64Var(&g.MinCreateRev, "min-create-rev", 0, "Minimum create revision")
	fs.Int64Var(&g.MaxCreateRev, "max-create-rev", 0, "Maximum create revision")
	fs.Int64Var(&g.MinModRev, "min-mod-rev", 0, "Minimum modification revision")
	fs.Int64Var(&g.MaxModRev, "max-mod-rev", 0, "Maximum modification revision")
}

// Request builds the range request of `get ARGS`, as getGetOp does.
func (g *GetFlags) Request(args []string) (*pb.RangeRequest, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("get command needs one argument as key and an optional argument as range_end")
	}
	if g.Prefix && g.FromKey {
		return nil, fmt.Errorf("`--prefix` and `--from-key` cannot be set at the same time, choose one")
	}
	if g.KeysOnly && g.CountOnly {
		return nil, fmt.Errorf("`--keys-only` and `--count-only` cannot be set at the same time, choose one")
	}
	r := &pb.RangeRequest{Key: []byte(args[0]), Limit: g.Limit, KeysOnly: g.KeysOnly, CountOnly: g.CountOnly}
	switch g.Consistency {
	case "s":
		r.Serializable = true
	case "l":
	default:
		return nil, fmt.Errorf("unknown consistency flag %q", g.Consistency)
	}
	if len(args) > 2 {
		return nil, fmt.Errorf("get command needs one argument as key and an optional argument as range_end")
	}
	if len(args) > 1 {
		if g.Prefix || g.FromKey {
			return nil, fmt.Errorf("too many arguments, only accept one argument when `--prefix` or `--from-key` is set")
		}
		r.RangeEnd = []byte(args[1])
	}
	if g.Rev > 0 {
		r.Revision = g.Rev
	}
	switch strings.ToUpper(g.Order) {
	case "ASCEND":
		r.SortOrder = pb.RangeRequest_ASCEND
	case "DESCEND":
		r.SortOrder = pb.RangeRequest_DESCEND
	case "":
	default:
		return nil, fmt.Errorf("bad sort order %v", g.Order)
	}
	switch strings.ToUpper(g.SortBy) {
	case "CREATE":
		r.SortTarget = pb.RangeRequest_CREATE
	case "KEY", "":
	case "MODIFY":
		r.SortTarget = pb.RangeRequest_MOD
	case "VALUE":
		r.SortTarget = pb.RangeRequest_VALUE
	case "VERSION":
		r.SortTarget = pb.RangeRequest_VERSION
	default:
		return nil, fmt.Errorf("bad sort target %v", g.SortBy)
	}
	// clientv3's WithSort: sorting by key in ascending order is no sort.
	if r.SortTarget == pb.RangeRequest_KEY && r.SortOrder == pb.RangeRequest_ASCEND {
		r.SortOrder = pb.RangeRequest_NONE
	}
	r.Key, r.RangeEnd = widen(r.Key, r.RangeEnd, g.Prefix, g.FromKey)
	if g.MinCreateRev > 0 {
		r.MinCreateRevision = g.MinCreateRev
	}
	if g.MaxCreateRev > 0 {
		if g.MinCreateRev > g.MaxCreateRev {
			return nil, fmt.Errorf("getMinCreateRev(=%v) > getMaxCreateRev(=%v)", g.MinCreateRev, g.MaxCreateRev)
		}
		r.MaxCreateRevision = g.MaxCreateRev
	}
	if g.MinModRev > 0 {
		r.MinModRevision = g.MinModRev
	}
	if g.MaxModRev > 0 {
		if g.MinModRev > g.MaxModRev {
			return nil, fmt.Errorf("getMinModRev(=%v) > getMaxModRev(=%v)", g.MinModRev, g.MaxModRev)
		}
		r.MaxModRevision = g.MaxModRev
	}
	return r, nil
}

// widen applies --prefix or --from-key to a request's key and range end,
// as etcdctl and clientv3's WithPrefix and WithFromKey do: an empty key
// becomes "\x00", from which on every key is.
func widen(key, end []byte, prefix, fromKey bool) ([]byte, []byte) {
	switch {
	case prefix && len(key) > 0:
		return key, mvcc.PrefixEnd(key)
	case prefix, fromKey:
		if len(key) == 0 {
			key = []byte{0}
		}
		return key, mvcc.GteEnd
	}
	return key, end
}

// PutFlags are etcdctl put's flags.
type PutFlags struct {
	Lease                    string
	PrevKV                   bool
	IgnoreValue, IgnoreLease bool
}

// Bind adds the flags to fs.
func (p *PutFlags) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&p.Lease, "lease", "0", "lease ID (in hexadecimal) to attach to the key")
	fs.BoolVar(&p.PrevKV, "prev-kv", false, "return the previous key-value pair before modification")
	fs.BoolVar(&p.IgnoreValue, "ignore-value", false, "updates the key using its current value")
	fs.BoolVar(&p.IgnoreLease, "ignore-lease", false, "updates the key using its current lease")
}

// Request builds the put request of `put ARGS`, as getPutOp does (the
// value is never read from standard input here).
func (p *PutFlags) Request(args []string) (*pb.PutRequest, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("put command needs 1 argument and input from stdin or 2 arguments")
	}
	if p.IgnoreValue && len(args) > 1 {
		return nil, fmt.Errorf("put command needs only 1 argument when 'ignore-value' is set")
	}
	r := &pb.PutRequest{Key: []byte(args[0]), PrevKv: p.PrevKV, IgnoreValue: p.IgnoreValue, IgnoreLease: p.IgnoreLease}
	if !p.IgnoreValue {
		if len(args) != 2 {
			return nil, fmt.Errorf("put command needs 1 argument and input from stdin or 2 arguments")
		}
		r.Value = []byte(args[1])
	}
	id, err := strconv.ParseInt(p.Lease, 16, 64)
	if err != nil {
		return nil, fmt.Errorf("bad lease ID (%w), expecting ID in Hex", err)
	}
	r.Lease = id
	return r, nil
}

// DelFlags are etcdctl del's flags.
type DelFlags struct {
	Prefix, PrevKV, FromKey, Range bool
}

// Bind adds the flags to fs.
func (d *DelFlags) Bind(fs *pflag.FlagSet) {
	fs.BoolVar(&d.Prefix, "prefix", false, "delete keys with matching prefix")
	fs.BoolVar(&d.PrevKV, "prev-kv", false, "return deleted key-value pairs")
	fs.BoolVar(&d.FromKey, "from-key", false, "delete keys that are greater than or equal to the given key using byte compare")
	fs.BoolVar(&d.Range, "range", false, "delete range of keys")
}

// Request builds the delete request of `del ARGS`, as getDelOp does.
func (d *DelFlags) Request(args []string) (*pb.DeleteRangeRequest, error) {
	if len(args) == 0 || len(args) > 2 {
		return nil, fmt.Errorf("del command needs one argument as key and an optional argument as range_end")
	}
	if d.Prefix && d.FromKey {
		return nil, fmt.Errorf("`--prefix` and `--from-key` cannot be set at the same time, choose one")
	}
	r := &pb.DeleteRangeRequest{Key: []byte(args[0]), PrevKv: d.PrevKV}
	if len(args) > 1 {
		if d.Prefix || d.FromKey {
			return nil, fmt.Errorf("too many arguments, only accept one argument when `--prefix` or `--from-key` is set")
		}
		r.RangeEnd = []byte(args[1])
	}
	r.Key, r.RangeEnd = widen(r.Key, r.RangeEnd, d.Prefix, d.FromKey)
	return r, nil
}

// ParseCompare reads one compare line of `txn`, as etcdctl's ParseCompare:
// TARGET("KEY") OP "VALUE", where TARGET is ver/version, c/create, m/mod,
// val/value or lease (a hex ID), and OP is =, !=, < or >.
func ParseCompare(line string) (*pb.Compare, error) {
	var key, op, val string
	lparen := strings.SplitN(line, "(", 2)
	if len(lparen) != 2 {
		return nil, fmt.Errorf("malformed comparison: %s", line)
	}
	target := lparen[0]
	n, serr := fmt.Sscanf(lparen[1], "%q) %s %q", &key, &op, &val)
	if n != 3 {
		return nil, fmt.Errorf("malformed comparison: %s; got %s(%q) %s %q", line, target, key, op, val)
	}
	if serr != nil {
		return nil, fmt.Errorf("malformed comparison: %s (%w)", line, serr)
	}
	c := &pb.Compare{Key: []byte(key)}
	var err error
	var v int64
	switch target {
	case "ver", "version":
		v, err = strconv.ParseInt(val, 10, 64)
		c.Target, c.TargetUnion = pb.Compare_VERSION, &pb.Compare_Version{Version: v}
	case "c", "create":
		v, err = strconv.ParseInt(val, 10, 64)
		c.Target, c.TargetUnion = pb.Compare_CREATE, &pb.Compare_CreateRevision{CreateRevision: v}
	case "m", "mod":
		v, err = strconv.ParseInt(val, 10, 64)
		c.Target, c.TargetUnion = pb.Compare_MOD, &pb.Compare_ModRevision{ModRevision: v}
	case "val", "value":
		c.Target, c.TargetUnion = pb.Compare_VALUE, &pb.Compare_Value{Value: []byte(val)}
	case "lease":
		v, err = strconv.ParseInt(val, 16, 64)
		c.Target, c.TargetUnion = pb.Compare_LEASE, &pb.Compare_Lease{Lease: v}
	default:
		return nil, fmt.Errorf("malformed comparison: %s (unknown target %s)", line, target)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid txn compare request: %s", line)
	}
	switch op {
	case "=":
		c.Result = pb.Compare_EQUAL
	case "!=":
		c.Result = pb.Compare_NOT_EQUAL
	case "<":
		c.Result = pb.Compare_LESS
	case ">":
		c.Result = pb.Compare_GREATER
	default:
		// NB: etcdctl panics here ("Unknown result op"); an error is kinder.
		return nil, fmt.Errorf("malformed comparison: %s (unknown operator %s; want =, !=, < or >)", line, op)
	}
	return c, nil
}

// FormatCompare writes a compare as ParseCompare reads it.
func FormatCompare(c *pb.Compare) string {
	var target, val string
	switch c.Target {
	case pb.Compare_VERSION:
		target, val = "ver", strconv.FormatInt(c.GetVersion(), 10)
	case pb.Compare_CREATE:
		target, val = "create", strconv.FormatInt(c.GetCreateRevision(), 10)
	case pb.Compare_MOD:
		target, val = "mod", strconv.FormatInt(c.GetModRevision(), 10)
	case pb.Compare_VALUE:
		target, val = "val", string(c.GetValue())
	case pb.Compare_LEASE:
		target, val = "lease", strconv.FormatInt(c.GetLease(), 16)
	}
	op := map[pb.Compare_CompareResult]string{pb.Compare_EQUAL: "=", pb.Compare_NOT_EQUAL: "!=",
		pb.Compare_LESS: "<", pb.Compare_GREATER: ">"}[c.Result]
	return fmt.Sprintf("%s(%q) %s %q", target, c.Key, op, val)
}

// ParseRequest reads one request line of `txn` (put, get or del with their
// flags), as etcdctl's parseRequestUnion does. The error a bad line gives
// is etcdctl's.
func ParseRequest(line string) (*pb.RequestOp, error) {
	args, err := Argify(line)
	if err != nil {
		return nil, err
	}
	if len(args) < 2 {
		return nil, fmt.Errorf("invalid txn compare request: %s", line)
	}
	fs := pflag.NewFlagSet(args[0], pflag.ContinueOnError)
	fs.SetOutput(discard{})
	fs.Usage = func() {}
	bad := fmt.Errorf("invalid txn request: %s", line)
	switch args[0] {
	case "put":
		var p PutFlags
		p.Bind(fs)
		if fs.Parse(args[1:]) != nil {
			return nil, bad
		}
		r, err := p.Request(fs.Args())
		if err != nil {
			return nil, err
		}
		return &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: r}}, nil
	case "get":
		var g GetFlags
		g.Bind(fs)
		if fs.Parse(args[1:]) != nil {
			return nil, bad
		}
		r, err := g.Request(fs.Args())
		if err != nil {
			return nil, err
		}
		return &pb.RequestOp{Request: &pb.RequestOp_RequestRange{RequestRange: r}}, nil
	case "del":
		var d DelFlags
		d.Bind(fs)
		if fs.Parse(args[1:]) != nil {
			return nil, bad
		}
		r, err := d.Request(fs.Args())
		if err != nil {
			return nil, err
		}
		return &pb.RequestOp{Request: &pb.RequestOp_RequestDeleteRange{RequestDeleteRange: r}}, nil
	}
	return nil, bad
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// FormatRequest writes a request as ParseRequest reads it.
func FormatRequest(op *pb.RequestOp) string {
	switch {
	case op.GetRequestPut() != nil:
		p := op.GetRequestPut()
		s := "put " + quote(p.Key)
		if !p.IgnoreValue {
			s += " " + quote(p.Value)
		}
		if p.Lease != 0 {
			s += " --lease=" + strconv.FormatInt(p.Lease, 16)
		}
		for _, f := range []struct {
			on   bool
			flag string
		}{{p.PrevKv, " --prev-kv"}, {p.IgnoreValue, " --ignore-value"}, {p.IgnoreLease, " --ignore-lease"}} {
			if f.on {
				s += f.flag
			}
		}
		return s
	case op.GetRequestDeleteRange() != nil:
		d := op.GetRequestDeleteRange()
		s := "del " + RangeArgs(d.Key, d.RangeEnd)
		if d.PrevKv {
			s += " --prev-kv"
		}
		return s
	case op.GetRequestRange() != nil:
		r := op.GetRequestRange()
		s := "get " + RangeArgs(r.Key, r.RangeEnd)
		for _, f := range []struct {
			flag string
			v    int64
		}{{" --rev=", r.Revision}, {" --limit=", r.Limit}, {" --min-create-rev=", r.MinCreateRevision},
			{" --max-create-rev=", r.MaxCreateRevision}, {" --min-mod-rev=", r.MinModRevision}, {" --max-mod-rev=", r.MaxModRevision}} {
			if f.v != 0 {
				s += f.flag + strconv.FormatInt(f.v, 10)
			}
		}
		if r.KeysOnly {
			s += " --keys-only"
		}
		if r.CountOnly {
			s += " --count-only"
		}
		if r.Serializable {
			s += " --consistency=s"
		}
		if t := SortTargetName(r.SortTarget); r.SortTarget != pb.RangeRequest_KEY {
			s += " --sort-by=" + t
		}
		if r.SortOrder != pb.RangeRequest_NONE {
			s += " --order=" + r.SortOrder.String()
		}
		return s
	}
	return ""
}

// SortTargetName is a sort target as etcdctl's --sort-by names it.
func SortTargetName(t pb.RangeRequest_SortTarget) string {
	if t == pb.RangeRequest_MOD {
		return "MODIFY"
	}
	return t.String()
}

// RangeArgs writes a key and range end as etcdctl's arguments: the key
// alone, the key and the range end, or the key with --prefix or
// --from-key.
func RangeArgs(key, end []byte) string {
	switch {
	case len(end) == 0:
		return quote(key)
	case mvcc.IsGteEnd(end):
		if len(key) == 1 && key[0] == 0 {
			key = nil // what etcdctl's empty key becomes
		}
		return quote(key) + " --from-key"
	case bytes.Equal(end, mvcc.PrefixEnd(key)):
		return quote(key) + " --prefix"
	}
	return quote(key) + " " + quote(end)
}

// quote writes a word as Argify reads it back: as it is, or quoted when it
// is empty or holds a space, a quote or a backslash.
func quote(b []byte) string {
	s := string(b)
	if s != "" && !strings.ContainsAny(s, " \t\"'\\") {
		return s
	}
	return strconv.Quote(s)
}
