package lincheck

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// burstHistory makes a history in bursts of operations, with gaps between
// some bursts where nothing is in flight (so that a stream closes windows
// there) and bursts that overlap. With register, its operations are those
// of randomRegister (one key, distinct values); otherwise those of
// randomHistory (keys, ranges, transactions).
func burstHistory(rng *rand.Rand, register bool) []Operation {
	var ops []Operation
	base := 0
	for b := range 2 + rng.IntN(6) {
		width := 4 + rng.IntN(12)
		for i := range 1 + rng.IntN(6) {
			op := randomStep(rng)
			if register {
				op = Operation{Key: "a"}
				switch x := rng.IntN(10); {
				case x < 4:
					op.Kind, op.Value = Put, fmt.Sprint("v", b, "-", i)
				case x < 6:
					op.Kind = Delete
				default:
					op.Kind = Get
				}
			} else {
				op.Value = fmt.Sprint(rng.IntN(3) + 1) // values repeat: the search's case
				if rng.IntN(8) == 0 {
					op = Operation{Kind: Txn, Steps: []Operation{randomStep(rng), randomStep(rng)}}
				}
			}
			c := base + rng.IntN(width)
			op.Call, op.Return = uint64(c), uint64(c+1+rng.IntN(width))
			if (op.Kind == Put || op.Kind == Delete) && rng.IntN(4) == 0 {
				op.Outcome = Indeterminate
			}
			op.Name = fmt.Sprintf("%d.%d:%v %s=%s", b, i, op.Kind, op.Key, op.Value)
			ops = append(ops, op)
		}
		if rng.IntN(3) > 0 {
			base += 2*width + 1 // a gap
		} else {
			base += width / 2 // overlapping bursts
		}
	}
	distinctPositions(ops)
	fillResults(rng, ops, historyShape{values: []string{"1", "2", "3"}, changeOneIn: 6})
	return ops
}

// streamed checks ops through a Stream: each operation is added when it
// ends (one of unknown outcome when its client gives up, some time after
// its call), the stream is settled now and then, and the last few
// operations are given to Verdict as extra instead.
func streamed(rng *rand.Rand, ops []Operation, opts Options) (Verdict, *int) {
	type arrival struct {
		at uint64
		op int
	}
	var arrivals []arrival
	var end uint64
	for i, op := range ops {
		at := op.Return
		if op.Outcome == Indeterminate {
			at = op.Call + 1 + uint64(rng.IntN(20))
		}
		arrivals = append(arrivals, arrival{at, i})
		end = max(end, at+1, op.Return+1)
	}
	slices.SortFunc(arrivals, func(a, b arrival) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.op, b.op)) })
	s := NewStream[int](opts)
	added := make([]bool, len(ops))
	extraFrom := max(len(arrivals)-rng.IntN(3), 0)
	for j, a := range arrivals[:extraFrom] {
		s.Add(ops[a.op], a.op)
		added[a.op] = true
		if rng.IntN(3) == 0 || j == extraFrom-1 {
			// Every operation called before the first not yet added
			// has been.
			before := end
			for i, op := range ops {
				if !added[i] {
					before = min(before, op.Call)
				}
			}
			s.Settle(before)
		}
	}
	var extra Ops
	var extraIdx []int
	for _, a := range arrivals[extraFrom:] {
		extra = append(extra, ops[a.op])
		extraIdx = append(extraIdx, a.op)
	}
	v, blamed := s.Verdict(extra)
	if v.Result == Violation && blamed == nil {
		i := extraIdx[v.Op]
		blamed = &i
	}
	return v, blamed
}

// TestStreamAgreesWithCheck: a history checked through a Stream, in
// windows, gets the verdict Check gives it whole, on random histories of
// bursts of operations, with gaps and without: one key of distinct values
// (the register check's case) and keys linked by ranges and transactions
// with values that repeat (the search's).
func TestStreamAgreesWithCheck(t *testing.T) {
	for _, register := range []bool{true, false} {
		t.Run(fmt.Sprint("register=", register), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(24, 7))
			counts := map[Result]int{}
			iters := 4000
			if testing.Short() {
				iters /= 10
			}
			for iter := range iters {
				ops := burstHistory(rng, register)
				want := Check(ops, Options{})
				got, blamed := streamed(rng, ops, Options{})
				if got.Result != want.Result {
					t.Fatalf("history %d: streamed %s, whole %s:\n%s", iter, got, want, describe(ops))
				}
				if got.Result == Violation && (blamed == nil || got.Key == "") {
					t.Fatalf("history %d: a violation that blames no operation: %+v", iter, got)
				}
				counts[got.Result]++
			}
			t.Logf("%v", counts)
			if counts[Linearizable] < iters/8 || counts[Violation] < iters/8 {
				t.Fatalf("too few of one answer to mean much: %v", counts)
			}
		})
	}
}

// TestStreamForgets: a long history of one key, in bursts with gaps, is
// checked as it goes: the stream holds no more than a burst or two of it.
func TestStreamForgets(t *testing.T) {
	s := NewStream[int](Options{})
	pos, most := uint64(1), 0
	for i := range 20000 {
		v := fmt.Sprint(i)
		s.Add(Operation{Kind: Put, Key: "k", Value: v, Call: pos, Return: pos + 2}, 0)
		s.Add(Operation{Kind: Get, Key: "k", Result: []KV{{"k", v}}, Call: pos + 1, Return: pos + 3}, 0)
		pos += 4
		if i%100 == 0 {
			s.Settle(pos)
		}
		most = max(most, len(s.keys["k"].ops))
	}
	if v, _ := s.Verdict(nil); v.Result != Linearizable || v.Registers < 100 {
		t.Fatalf("got %s, decided by %d register checks", v, v.Registers)
	}
	if most > 202 {
		t.Fatalf("the stream held %d operations of one key at once, want at most the 200 between settles", most)
	}
}

// TestStreamForgetsEachKey: a history of one put on each of many keys (a
// load on a million keys) leaves each key checked up to date with no
// array of operations: an empty one with room for an operation is some
// 400 bytes a key that a long load's check would keep for ever (290 MB
// for a million puts). Seen to fail (every key kept its array) when a
// settled key kept the room it had.
func TestStreamForgetsEachKey(t *testing.T) {
	type data struct{ pad [32]int64 } // about what the simulator keeps of an operation
	s := NewStream[data](Options{})
	pos := uint64(1)
	const keys = 20000
	for i := range keys {
		s.Add(Operation{Kind: Put, Key: fmt.Sprint("k", i), Value: fmt.Sprint(i), Call: pos, Return: pos + 1}, data{})
		pos += 2
		if i%100 == 99 {
			s.Settle(pos)
		}
	}
	if v, _ := s.Verdict(nil); v.Result != Linearizable {
		t.Fatalf("got %s", v)
	}
	kept := 0
	for _, k := range s.keys {
		if cap(k.ops) > 0 {
			kept++
		}
	}
	if kept > 0 {
		t.Errorf("%d of %d keys checked up to date keep an array of operations", kept, keys)
	}
}
