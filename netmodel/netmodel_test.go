package netmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestParseRatio(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Ratio
		err  bool
		str  string // String() of the result, when it differs from in
	}{
		{in: "5%", want: Ratio{5, 100}},
		{in: "0%", want: Ratio{0, 100}},
		{in: "100%", want: Ratio{100, 100}},
		{in: "0.5%", want: Ratio{5, 1000}, str: "5/1000"},
		{in: "12.25%", want: Ratio{1225, 10000}, str: "1225/10000"},
		{in: "0.000001%", want: Ratio{1, 100000000}, str: "1/100000000"},
		{in: " 5% ", want: Ratio{5, 100}, str: "5%"},
		{in: "1/100", want: Ratio{1, 100}, str: "1%"},
		{in: "1/3", want: Ratio{1, 3}},
		{in: "3/3", want: Ratio{3, 3}},
		{in: "0/7", want: Ratio{0, 7}, str: "0%"},
		{in: " 1 / 2 ", want: Ratio{1, 2}, str: "1/2"},
		{in: "101%", err: true},
		{in: "0.0000001%", err: true}, // more than 6 decimals
		{in: ".5%", err: true},
		{in: "-5%", err: true},
		{in: "5", err: true},
		{in: "%", err: true},
		{in: "", err: true},
		{in: "abc", err: true},
		{in: "1/0", err: true},
		{in: "2/1", err: true},
		{in: "1/-2", err: true},
		{in: "a/b", err: true},
	} {
		got, err := ParseRatio(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseRatio(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseRatio(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		str := tc.str
		if str == "" {
			str = tc.in
		}
		if got.String() != str {
			t.Errorf("ParseRatio(%q).String() = %q, want %q", tc.in, got.String(), str)
		}
		if back, err := ParseRatio(got.String()); err != nil || back.IsZero() != got.IsZero() ||
			back.Num*got.Den != got.Num*back.Den {
			t.Errorf("%q does not read back: %v, %v", got.String(), back, err)
		}
	}
}

func TestParseLatency(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		in   string
		want Latency
		err  bool
		str  string
	}{
		{in: "10ms", want: Latency{10 * ms, 10 * ms}},
		{in: "0s", want: Latency{0, 0}},
		{in: "1.5ms", want: Latency{1500 * time.Microsecond, 1500 * time.Microsecond}},
		{in: "5ms-15ms", want: Latency{5 * ms, 15 * ms}},
		{in: " 5ms - 15ms ", want: Latency{5 * ms, 15 * ms}, str: "5ms-15ms"},
		{in: "10ms-10ms", want: Latency{10 * ms, 10 * ms}, str: "10ms"},
		{in: "1s-2s", want: Latency{time.Second, 2 * time.Second}},
		{in: "15ms-5ms", err: true},
		{in: "-5ms", err: true},
		{in: "10", err: true},
		{in: "", err: true},
		{in: "5ms-", err: true},
		{in: "fast", err: true},
	} {
		got, err := ParseLatency(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseLatency(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseLatency(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			continue
		}
		str := tc.str
		if str == "" {
			str = tc.in
		}
		if got.String() != str {
			t.Errorf("ParseLatency(%q).String() = %q, want %q", tc.in, got.String(), str)
		}
		if back, err := ParseLatency(got.String()); err != nil || back != got {
			t.Errorf("%q does not read back: %v, %v", got.String(), back, err)
		}
	}
}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func TestLatencyDraw(t *testing.T) {
	r, probe := rng(1), rng(1)
	if d := Fixed(7 * time.Millisecond).Draw(r); d != 7*time.Millisecond {
		t.Fatalf("fixed latency drew %s", d)
	}
	if r.Uint64() != probe.Uint64() {
		t.Fatal("a fixed latency consumed randomness")
	}
	l := Latency{Min: time.Millisecond, Max: time.Millisecond + 3*time.Microsecond}
	seen := map[time.Duration]bool{}
	for range 1000 {
		d := l.Draw(r)
		if d < l.Min || d > l.Max || d%time.Microsecond != 0 {
			t.Fatalf("drew %s outside [%s, %s] or off the microsecond grid", d, l.Min, l.Max)
		}
		seen[d] = true
	}
	if len(seen) != 4 {
		t.Fatalf("drew %d distinct values from a 4-value range; both ends must be reachable", len(seen))
	}
}

func TestRatioHit(t *testing.T) {
	r, probe := rng(2), rng(2)
	for range 100 {
		if (Ratio{}).Hit(r) || (Ratio{0, 5}).Hit(r) || (Ratio{3, 0}).Hit(r) {
			t.Fatal("a zero ratio hit")
		}
		if !(Ratio{1, 1}).Hit(r) || !(Ratio{100, 100}).Hit(r) {
			t.Fatal("a certain ratio missed")
		}
	}
	if r.Uint64() != probe.Uint64() {
		t.Fatal("zero and certain ratios consumed randomness")
	}
	hits := 0
	for range 10000 {
		if (Ratio{1, 4}).Hit(r) {
			hits++
		}
	}
	if hits < 2300 || hits > 2700 {
		t.Fatalf("1/4 hit %d times in 10000", hits)
	}
}

func TestSendFIFOPerLink(t *testing.T) {
	n := New(LinkProps{Latency: Latency{Min: time.Millisecond, Max: 50 * time.Millisecond}}, rng(3))
	var last12, last13 time.Duration
	overtaken := false
	for i := range 2000 {
		now := time.Duration(i) * 100 * time.Microsecond
		p := n.Send(1, 2, now)
		if p.Dropped != NotDropped || p.ArriveAt < now+time.Millisecond {
			t.Fatalf("send %d: %+v", i, p)
		}
		if p.ArriveAt < last12 {
			t.Fatalf("send %d on 1→2 arrives at %s, before the previous one (%s)", i, p.ArriveAt, last12)
		}
		last12 = p.ArriveAt
		q := n.Send(1, 3, now)
		if q.ArriveAt < last13 {
			t.Fatalf("send %d on 1→3 arrives at %s, before the previous one (%s)", i, q.ArriveAt, last13)
		}
		last13 = q.ArriveAt
		if q.ArriveAt < last12 {
			overtaken = true // links are independent
		}
	}
	if !overtaken {
		t.Fatal("1→3 never arrived before 1→2: links are not independent")
	}
}

func TestSendLossAndDuplicate(t *testing.T) {
	ms := time.Millisecond
	n := New(LinkProps{Latency: Fixed(10 * ms)}, rng(4))
	n.SetProps(1, 2, LinkProps{Latency: Fixed(10 * ms), Loss: Ratio{1, 1}})
	n.SetProps(1, 3, LinkProps{Latency: Fixed(10 * ms), Duplicate: Ratio{1, 1}})
	if p := n.Send(1, 2, 100*ms); p.Dropped != DropLoss || p.ArriveAt != 105*ms || p.Duplicate {
		t.Fatalf("lost message: %+v; want DropLoss, vanishing half way at 105ms", p)
	}
	p := n.Send(1, 3, 100*ms)
	if p.Dropped != NotDropped || !p.Duplicate || p.ArriveAt != 110*ms || p.DupAt < p.ArriveAt {
		t.Fatalf("duplicated message: %+v", p)
	}
	if q := n.Send(1, 3, 100*ms); q.ArriveAt < p.DupAt {
		t.Fatalf("a later message (%s) overtook the duplicate (%s)", q.ArriveAt, p.DupAt)
	}
	// The reverse direction keeps the default.
	if p := n.Send(2, 1, 0); p.Dropped != NotDropped || p.Duplicate {
		t.Fatalf("2→1 took 1→2's props: %+v", p)
	}
	if n.Props(2, 1) != n.Default() || n.Props(1, 2).Loss != (Ratio{1, 1}) {
		t.Fatal("Props do not report what was set")
	}
}

func TestSendIsDeterministic(t *testing.T) {
	run := func() []Plan {
		n := New(LinkProps{Latency: Latency{Min: time.Millisecond, Max: 9 * time.Millisecond},
			Loss: Ratio{1, 5}, Duplicate: Ratio{1, 5}}, rng(5))
		var out []Plan
		for i := range 500 {
			out = append(out, n.Send(NodeID(i%3+1), NodeID((i+1)%3+1), time.Duration(i)*time.Millisecond))
		}
		return out
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave different plans")
	}
	var lost, dup int
	for _, p := range a {
		if p.Dropped == DropLoss {
			lost++
		}
		if p.Duplicate {
			dup++
		}
	}
	if lost == 0 || dup == 0 {
		t.Fatalf("lost %d, duplicated %d of 500 at 1/5 each", lost, dup)
	}
}

func TestCutsAndPartitions(t *testing.T) {
	n := New(LinkProps{Latency: Fixed(time.Millisecond)}, rng(6))
	n.Cut(1, 2)
	if !n.IsCut(1, 2) || n.IsCut(2, 1) {
		t.Fatal("Cut(1, 2) must cut 1→2 only")
	}
	if p := n.Send(1, 2, 0); p.Dropped != DropCut {
		t.Fatalf("send on a cut link: %+v", p)
	}
	if n.IsCut(7, 9) {
		t.Fatal("an unknown link is not cut")
	}
	n.Restore(1, 2)
	if n.IsCut(1, 2) || n.Send(1, 2, 0).Dropped != NotDropped {
		t.Fatal("Restore did not reconnect 1→2")
	}

	n.Partition([][]NodeID{{1, 2}, {3}, {4, 5}})
	want := []Link{{1, 3}, {1, 4}, {1, 5}, {2, 3}, {2, 4}, {2, 5}, {3, 1}, {3, 2}, {3, 4}, {3, 5},
		{4, 1}, {4, 2}, {4, 3}, {5, 1}, {5, 2}, {5, 3}}
	if got := n.Cuts(); !slices.Equal(got, want) {
		t.Fatalf("partition cuts:\n got %v\nwant %v", got, want)
	}
	// A second partition replaces the first.
	n.Partition([][]NodeID{{1}, {2}})
	if got := n.Cuts(); !slices.Equal(got, []Link{{1, 2}, {2, 1}}) {
		t.Fatalf("second partition: %v", got)
	}

	n.HealAll()
	n.SetProps(1, 2, LinkProps{Latency: Fixed(time.Second)})
	n.Isolate(2, []NodeID{1, 2, 3})
	if got := n.Cuts(); !slices.Equal(got, []Link{{1, 2}, {2, 1}, {2, 3}, {3, 2}}) {
		t.Fatalf("isolate: %v", got)
	}
	n.HealAll()
	if len(n.Cuts()) != 0 {
		t.Fatalf("HealAll left %v", n.Cuts())
	}
	if n.Props(1, 2).Latency != Fixed(time.Second) {
		t.Fatal("HealAll must keep changed link properties")
	}
}

func TestDropReasonNames(t *testing.T) {
	for r, want := range map[DropReason]string{
		DropCut: "partition", DropLoss: "loss", DropDown: "destination-down",
		DropQueue: "queue-full", DropUnknown: "unknown-destination", DropClusterMismatch: "cluster-id-mismatch", DropRemovedMember: "removed-member", DropReason(99): "drop(?)",
	} {
		if r.String() != want {
			t.Errorf("%d.String() = %q, want %q", r, r.String(), want)
		}
	}
}

// TestSendSaturates: a latency near the largest duration arrives at the end
// of time, never before it was sent (issue 13: the sum wrapped, and the
// simulator panicked with "an event at ... came due at ...").
func TestSendSaturates(t *testing.T) {
	huge := Fixed(time.Duration(math.MaxInt64))
	n := New(LinkProps{Latency: huge, Duplicate: mustRatio(t, "100%")}, rand.New(rand.NewPCG(1, 2)))
	now := time.Hour
	p := n.Send(1, 2, now)
	if p.ArriveAt < now || p.DupAt < now {
		t.Fatalf("sent at %v, arrives at %v (duplicate at %v): before it was sent", now, p.ArriveAt, p.DupAt)
	}
	n = New(LinkProps{Latency: huge, Loss: mustRatio(t, "100%")}, rand.New(rand.NewPCG(1, 2)))
	if p := n.Send(1, 2, now); p.ArriveAt < now {
		t.Fatalf("a lost message vanishes at %v, before it was sent at %v", p.ArriveAt, now)
	}
}

func mustRatio(t *testing.T, s string) Ratio {
	t.Helper()
	r, err := ParseRatio(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
