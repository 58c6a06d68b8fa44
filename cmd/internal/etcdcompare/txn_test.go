package etcdcompare

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// nested is a transaction nested depth deep, each level's then holding the
// next, the innermost a put.
func nested(depth int) []clientv3.Op {
	ops := []clientv3.Op{clientv3.OpPut("k", "v")}
	for range depth - 1 {
		ops = []clientv3.Op{clientv3.OpTxn(nil, ops, nil)}
	}
	return ops
}

// txnDepths sends transactions nested 127, 128, 129 and 1,000 deep and
// says what each got. (Not 10,000: a real etcd once took more than 10s to
// answer one on this loaded machine; mvcc's TestValidateTxnBudget takes
// 10,000.)
func txnDepths(t *testing.T, endpoint string) string {
	t.Helper()
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []string
	for _, d := range []int{127, 128, 129, 1000} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := c.Txn(ctx).Then(nested(d)...).Commit()
		cancel()
		got := "ok"
		if err != nil {
			got = err.Error()
		}
		out = append(out, fmt.Sprintf("depth %d: %s", d, got))
	}
	return strings.Join(out, "\n") + "\n"
}

// wantTxnDepths is what a real etcd v3.6.16 answers (seen with
// RAFTSIM_ETCD): --max-txn-ops (128) is a budget each level of nesting
// spends, so a chain of one-operation transactions nests 128 deep.
const wantTxnDepths = `depth 127: ok
depth 128: ok
depth 129: etcdserver: too many operations in txn request
depth 1000: etcdserver: too many operations in txn request
`

// TestWireTxnDepthMatchesRealEtcd: transactions nested deeper than etcd
// allows are refused with etcd's error, before they reach the world (a
// 10,000-deep one took minutes in protobuf's Size and Marshal), and the
// depths etcd allows are served, against serve's engine as against a real
// etcd (with RAFTSIM_ETCD). (Seen to fail before, with 10,000 deep: the
// deep ones were taken in.)
func TestWireTxnDepthMatchesRealEtcd(t *testing.T) {
	if bin := etcdBinOrEmpty(t); bin != "" {
		c, err := StartReal(bin, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		got := txnDepths(t, ClientURL(Members[0]))
		c.Stop()
		if got != wantTxnDepths {
			t.Fatalf("a real etcd:\n%s", diff(wantTxnDepths, got, "want", "etcd"))
		}
	}
	c, err := StartWire("", "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if got := txnDepths(t, ClientURL(Members[0])); got != wantTxnDepths {
		t.Fatalf("raftsim serve:\n%s", diff(wantTxnDepths, got, "etcd", "serve"))
	}
}
