package lincheck

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestInitial: a store restored from a snapshot starts with its keys, so a
// read of a key nobody wrote in the history may see its restored value,
// and only that; a range read sees restored keys beside written ones. The
// same holds through a Stream, whose windows start from the restored
// value.
func TestInitial(t *testing.T) {
	initial := map[string]string{"k": "old", "/a/x": "1"}
	rangeGet := func(call, ret uint64, kvs ...KV) Operation {
		return Operation{Kind: Get, Key: "/a/", End: "/a0", Call: call, Return: ret, Result: kvs, Name: "get /a/"}
	}
	for _, tc := range []struct {
		name        string
		ops         []Operation
		want, empty Result // with Initial, and from an empty store
	}{
		{"a restored value is read", []Operation{get("k", "old", 1, 2)}, Linearizable, Violation},
		{"a restored key is not absent", []Operation{get("k", "", 1, 2)}, Violation, Linearizable},
		{"a write replaces it", []Operation{put("k", "new", 1, 2), get("k", "new", 3, 4), get("k", "old", 5, 6)}, Violation, Violation},
		{"a concurrent read may see either", []Operation{put("k", "new", 1, 4), get("k", "old", 2, 3)}, Linearizable, Violation},
		{"a delete removes it", []Operation{del("k", 1, 2), get("k", "", 3, 4)}, Linearizable, Linearizable},
		{"a range sees restored and written keys", []Operation{put("/a/y", "2", 1, 2),
			rangeGet(3, 4, KV{"/a/x", "1"}, KV{"/a/y", "2"})}, Linearizable, Violation},
		{"a range that misses a restored key", []Operation{put("/a/y", "2", 1, 2), rangeGet(3, 4, KV{"/a/y", "2"})}, Violation, Linearizable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if v := Check(tc.ops, Options{Initial: initial}); v.Result != tc.want {
				t.Errorf("with the restored store: %v, want %v", v, tc.want)
			}
			if v := Check(tc.ops, Options{}); v.Result != tc.empty {
				t.Errorf("from an empty store: %v, want %v", v, tc.empty)
			}
			for seed := range uint64(20) {
				v, _ := streamed(rand.New(rand.NewPCG(seed, 3)), tc.ops, Options{Initial: initial})
				if v.Result != tc.want {
					t.Errorf("streamed (seed %d): %v, want %v", seed, v, tc.want)
				}
			}
		})
	}
}

// TestStreamInitialAgreesWithCheck: random histories over restored keys
// get the same verdict through a Stream as from Check.
func TestStreamInitialAgreesWithCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	counts := map[Result]int{}
	for i := range 1500 {
		ops := burstHistory(rng, i%2 == 0)
		initial := map[string]string{"a": fmt.Sprint(rng.IntN(3) + 1), "b": "1"}
		want := Check(ops, Options{Initial: initial})
		got, _ := streamed(rng, ops, Options{Initial: initial})
		if got.Result != want.Result {
			t.Fatalf("history %d: streamed %v, whole %v", i, got, want)
		}
		counts[want.Result]++
	}
	if counts[Linearizable] == 0 || counts[Violation] == 0 {
		t.Errorf("one-sided: %v", counts)
	}
}
