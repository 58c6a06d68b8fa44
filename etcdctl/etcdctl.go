// Package etcdctl reads and writes etcdctl's request syntax: the put, get
// and del command lines with their flags, and the compare lines of `txn`,
// as etcdctl v3.6 reads them (ctlv3/command: get_command.go, put_command.go,
// del_command.go, txn_command.go), with its error messages. The console
// and the scenario format's txn step both use it, so that a transaction
// reads the same in both.
package etcdctl

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

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
}

// Range is a request with how it was asked: Prefix says RangeEnd is the
// prefix end of Key (kept as the user wrote it, for the transcript).
type Range struct {
	Key, RangeEnd string
	Prefix        bool
}

// Request builds the range request of `get ARGS`, as getGetOp does.
func (g *GetFlags) Request(args []string) (*mvcc.RangeRequest, Range, error) {
	var rg Range
	if len(args) == 0 {
		return nil, rg, fmt.Errorf("get command needs one argument as key and an optional argument as range_end")
	}
	if g.Prefix && g.FromKey {
		return nil, rg, fmt.Errorf("`--prefix` and `--from-key` cannot be set at the same time, choose one")
	}
	if g.KeysOnly && g.CountOnly {
		return nil, rg, fmt.Errorf("`--keys-only` and `--count-only` cannot be set at the same time, choose one")
	}
	r := &mvcc.RangeRequest{Key: args[0], Limit: g.Limit, KeysOnly: g.KeysOnly, CountOnly: g.CountOnly}
	switch g.Consistency {
	case "s":
		r.Serializable = true
	case "l":
	default:
		return nil, rg, fmt.Errorf("unknown consistency flag %q", g.Consistency)
	}
	if len(args) > 2 {
		return nil, rg, fmt.Errorf("get command needs one argument as key and an optional argument as range_end")
	}
	if len(args) > 1 {
		if g.Prefix || g.FromKey {
			return nil, rg, fmt.Errorf("too many arguments, only accept one argument when `--prefix` or `--from-key` is set")
		}
		r.RangeEnd = args[1]
	}
	if g.Rev > 0 {
		r.Revision = g.Rev
	}
	switch strings.ToUpper(g.Order) {
	case "ASCEND":
		r.SortOrder = mvcc.SortAscend
	case "DESCEND":
		r.SortOrder = mvcc.SortDescend
	case "":
	default:
		return nil, rg, fmt.Errorf("bad sort order %v", g.Order)
	}
	switch strings.ToUpper(g.SortBy) {
	case "CREATE":
		r.SortTarget = mvcc.SortByCreate
	case "KEY", "":
	case "MODIFY":
		r.SortTarget = mvcc.SortByMod
	case "VALUE":
		r.SortTarget = mvcc.SortByValue
	case "VERSION":
		r.SortTarget = mvcc.SortByVersion
	default:
		return nil, rg, fmt.Errorf("bad sort target %v", g.SortBy)
	}
	// clientv3's WithSort: sorting by key in ascending order is no sort.
	if r.SortTarget == mvcc.SortByKey && r.SortOrder == mvcc.SortAscend {
		r.SortOrder = mvcc.SortNone
	}
	rg = widen(&r.Key, &r.RangeEnd, g.Prefix, g.FromKey)
	return r, rg, nil
}

// widen applies --prefix or --from-key to a request's key and range end,
// as clientv3's WithPrefix and WithFromKey do (an empty key becomes
// "\x00"), and returns the range as the user asked for it.
func widen(key, end *string, prefix, fromKey bool) Range {
	rg := Range{Key: *key, RangeEnd: *end}
	switch {
	case prefix:
		rg.Prefix = true
		*end = prefixEnd(*key)
	case fromKey:
		*end, rg.RangeEnd = mvcc.GteEnd, mvcc.GteEnd
	default:
		return rg
	}
	if *key == "" {
		*key = "\x00"
	}
	return rg
}

func prefixEnd(key string) string {
	if key == "" {
		return mvcc.GteEnd
	}
	return mvcc.PrefixEnd(key)
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
func (p *PutFlags) Request(args []string) (*mvcc.PutRequest, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("put command needs 1 argument and input from stdin or 2 arguments")
	}
	if p.IgnoreValue && len(args) > 1 {
		return nil, fmt.Errorf("put command needs only 1 argument when 'ignore-value' is set")
	}
	r := &mvcc.PutRequest{Key: args[0], PrevKv: p.PrevKV, IgnoreValue: p.IgnoreValue, IgnoreLease: p.IgnoreLease}
	if !p.IgnoreValue {
		if len(args) != 2 {
			return nil, fmt.Errorf("put command needs 1 argument and input from stdin or 2 arguments")
		}
		r.Value = args[1]
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
func (d *DelFlags) Request(args []string) (*mvcc.DeleteRangeRequest, Range, error) {
	var rg Range
	if len(args) == 0 || len(args) > 2 {
		return nil, rg, fmt.Errorf("del command needs one argument as key and an optional argument as range_end")
	}
	if d.Prefix && d.FromKey {
		return nil, rg, fmt.Errorf("`--prefix` and `--from-key` cannot be set at the same time, choose one")
	}
	r := &mvcc.DeleteRangeRequest{Key: args[0], PrevKv: d.PrevKV}
	if len(args) > 1 {
		if d.Prefix || d.FromKey {
			return nil, rg, fmt.Errorf("too many arguments, only accept one argument when `--prefix` or `--from-key` is set")
		}
		r.RangeEnd = args[1]
	}
	return r, widen(&r.Key, &r.RangeEnd, d.Prefix, d.FromKey), nil
}

// ParseCompare reads one compare line of `txn`, as etcdctl's ParseCompare:
// TARGET("KEY") OP "VALUE", where TARGET is ver/version, c/create, m/mod,
// val/value or lease (a hex ID), and OP is =, !=, < or >.
func ParseCompare(line string) (*mvcc.Compare, error) {
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
	c := &mvcc.Compare{Key: key}
	var err error
	switch target {
	case "ver", "version":
		c.Target = mvcc.TargetVersion
		c.Version, err = strconv.ParseInt(val, 10, 64)
	case "c", "create":
		c.Target = mvcc.TargetCreate
		c.CreateRevision, err = strconv.ParseInt(val, 10, 64)
	case "m", "mod":
		c.Target = mvcc.TargetMod
		c.ModRevision, err = strconv.ParseInt(val, 10, 64)
	case "val", "value":
		c.Target, c.Value = mvcc.TargetValue, val
	case "lease":
		c.Target = mvcc.TargetLease
		c.Lease, err = strconv.ParseInt(val, 16, 64)
	default:
		return nil, fmt.Errorf("malformed comparison: %s (unknown target %s)", line, target)
	}
	if err != nil {
		return nil, fmt.Errorf("invalid txn compare request: %s", line)
	}
	switch op {
	case "=":
		c.Result = mvcc.CompareEqual
	case "!=":
		c.Result = mvcc.CompareNotEqual
	case "<":
		c.Result = mvcc.CompareLess
	case ">":
		c.Result = mvcc.CompareGreater
	default:
		// NB: etcdctl panics here ("Unknown result op"); an error is kinder.
		return nil, fmt.Errorf("malformed comparison: %s (unknown operator %s; want =, !=, < or >)", line, op)
	}
	return c, nil
}

// FormatCompare writes a compare as ParseCompare reads it.
func FormatCompare(c *mvcc.Compare) string {
	var target, val string
	switch c.Target {
	case mvcc.TargetVersion:
		target, val = "ver", strconv.FormatInt(c.Version, 10)
	case mvcc.TargetCreate:
		target, val = "create", strconv.FormatInt(c.CreateRevision, 10)
	case mvcc.TargetMod:
		target, val = "mod", strconv.FormatInt(c.ModRevision, 10)
	case mvcc.TargetValue:
		target, val = "val", c.Value
	case mvcc.TargetLease:
		target, val = "lease", strconv.FormatInt(c.Lease, 16)
	}
	op := map[mvcc.CompareResult]string{mvcc.CompareEqual: "=", mvcc.CompareNotEqual: "!=",
		mvcc.CompareLess: "<", mvcc.CompareGreater: ">"}[c.Result]
	return fmt.Sprintf("%s(%q) %s %q", target, c.Key, op, val)
}

// ParseRequest reads one request line of `txn` (put, get or del with their
// flags), as etcdctl's parseRequestUnion does. The error a bad line gives
// is etcdctl's.
func ParseRequest(line string) (*mvcc.RequestOp, error) {
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
		return &mvcc.RequestOp{RequestPut: r}, nil
	case "get":
		var g GetFlags
		g.Bind(fs)
		if fs.Parse(args[1:]) != nil {
			return nil, bad
		}
		r, _, err := g.Request(fs.Args())
		if err != nil {
			return nil, err
		}
		return &mvcc.RequestOp{RequestRange: r}, nil
	case "del":
		var d DelFlags
		d.Bind(fs)
		if fs.Parse(args[1:]) != nil {
			return nil, bad
		}
		r, _, err := d.Request(fs.Args())
		if err != nil {
			return nil, err
		}
		return &mvcc.RequestOp{RequestDeleteRange: r}, nil
	}
	return nil, bad
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// FormatRequest writes a request as ParseRequest reads it.
func FormatRequest(op *mvcc.RequestOp) string {
	q := func(s string) string {
		if s != "" && !strings.ContainsAny(s, " \t\"'\\") {
			return s
		}
		return strconv.Quote(s)
	}
	rangeArgs := func(key, end string) string {
		switch {
		case end == "":
			return q(key)
		case end == mvcc.GteEnd:
			if key == "\x00" {
				key = ""
			}
			return q(key) + " --from-key"
		case key != "\x00" && end == mvcc.PrefixEnd(key):
			return q(key) + " --prefix"
		}
		return q(key) + " " + q(end)
	}
	switch {
	case op.RequestPut != nil:
		p := op.RequestPut
		s := "put " + q(p.Key)
		if !p.IgnoreValue {
			s += " " + q(p.Value)
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
	case op.RequestDeleteRange != nil:
		d := op.RequestDeleteRange
		s := "del " + rangeArgs(d.Key, d.RangeEnd)
		if d.PrevKv {
			s += " --prev-kv"
		}
		return s
	case op.RequestRange != nil:
		r := op.RequestRange
		s := "get " + rangeArgs(r.Key, r.RangeEnd)
		if r.Revision != 0 {
			s += " --rev=" + strconv.FormatInt(r.Revision, 10)
		}
		if r.Limit != 0 {
			s += " --limit=" + strconv.FormatInt(r.Limit, 10)
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
		if t := [...]string{"", "VERSION", "CREATE", "MODIFY", "VALUE"}[r.SortTarget]; t != "" {
			s += " --sort-by=" + t
		}
		if o := [...]string{"", "ASCEND", "DESCEND"}[r.SortOrder]; o != "" {
			s += " --order=" + o
		}
		return s
	}
	return ""
}
