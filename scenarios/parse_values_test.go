package scenarios

import (
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"65536", 65536, true},
		{"1MiB", 1 << 20, true},
		{"512KiB", 512 << 10, true},
		{"1 GiB", 1 << 30, true},
		{"100B", 100, true},
		{"1.5MiB", 3 << 19, true},
		{"0.5KiB", 512, true},
		{"0.1KiB", 0, false}, // 102.4 bytes
		{"1.5", 0, false},
		{"1MB", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"", 0, false},
		{"MiB", 0, false},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551615KiB", 0, false},
		{"99999999999999999999", 0, false},
	} {
		got, err := parseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d, ok=%t", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestParseComparison(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Comparison
		ok   bool
	}{
		{"5", Comparison{CmpEq, 5}, true},
		{"==5", Comparison{CmpEq, 5}, true},
		{"!=3", Comparison{CmpNe, 3}, true},
		{"<2", Comparison{CmpLt, 2}, true},
		{"<=2", Comparison{CmpLe, 2}, true},
		{">7", Comparison{CmpGt, 7}, true},
		{">=7", Comparison{CmpGe, 7}, true},
		{" >= 7 ", Comparison{CmpGe, 7}, true},
		{"=5", Comparison{}, false},
		{">=", Comparison{}, false},
		{">=-1", Comparison{}, false},
		{"five", Comparison{}, false},
		{"", Comparison{}, false},
		{"=>5", Comparison{}, false},
	} {
		got, err := parseComparison(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseComparison(%q) = %v, %v; want %v, ok=%t", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestComparisonHolds(t *testing.T) {
	for _, tc := range []struct {
		c    Comparison
		v    uint64
		want bool
	}{
		{Comparison{CmpEq, 5}, 5, true}, {Comparison{CmpEq, 5}, 4, false},
		{Comparison{CmpNe, 5}, 4, true}, {Comparison{CmpNe, 5}, 5, false},
		{Comparison{CmpLt, 5}, 4, true}, {Comparison{CmpLt, 5}, 5, false},
		{Comparison{CmpLe, 5}, 5, true}, {Comparison{CmpLe, 5}, 6, false},
		{Comparison{CmpGt, 5}, 6, true}, {Comparison{CmpGt, 5}, 5, false},
		{Comparison{CmpGe, 5}, 5, true}, {Comparison{CmpGe, 5}, 4, false},
	} {
		if got := tc.c.Holds(tc.v); got != tc.want {
			t.Errorf("%v.Holds(%d) = %t, want %t", tc.c, tc.v, got, tc.want)
		}
	}
}

func TestParseRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want NodeRef
		ok   bool
	}{
		{"etcd-1", NodeRef{Kind: RefName, Name: "etcd-1"}, true},
		{"@leader", NodeRef{Kind: RefLeader}, true},
		{"@follower", NodeRef{Kind: RefFollower}, true},
		{"@follower3", NodeRef{Kind: RefFollowerN, N: 3}, true},
		{"@followers", NodeRef{Kind: RefFollowers}, true},
		{"$old", NodeRef{Kind: RefVar, Name: "old"}, true},
		{"@follower0", NodeRef{}, false},
		{"@follower03", NodeRef{}, false},
		{"@follower+3", NodeRef{}, false},
		{"@follower99999999999999999999", NodeRef{}, false},
		{"@leaders", NodeRef{}, false},
		{"$", NodeRef{}, false},
		{"$a b", NodeRef{}, false},
		{"Etcd-1", NodeRef{}, false},
		{"", NodeRef{}, false},
	} {
		got, err := parseRef(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseRef(%q) = %+v, %v; want %+v, ok=%t", tc.in, got, err, tc.want, tc.ok)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("parseRef(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestTextIn(t *testing.T) {
	both := Text{En: "hello", Zh: "你好"}
	for _, tc := range []struct {
		t    Text
		lang string
		want string
	}{
		{both, "en", "hello"}, {both, "zh", "你好"}, {both, "zh-CN", "你好"}, {both, "", "hello"}, {both, "fr", "hello"},
		{Text{En: "hello"}, "zh", "hello"}, {Text{Zh: "你好"}, "en", "你好"},
	} {
		if got := tc.t.In(tc.lang); got != tc.want {
			t.Errorf("%+v.In(%q) = %q, want %q", tc.t, tc.lang, got, tc.want)
		}
	}
}

func TestParseMsgType(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"MsgApp", true}, {"MsgVote", true}, {"MsgPreVote", true}, {"MsgTimeoutNow", true},
		{"msgapp", false}, {"App", false}, {"MsgHup", false}, {"MsgStorageAppend", false}, {"", false},
	} {
		_, err := parseMsgType(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("parseMsgType(%q) error %v, want ok=%t", tc.in, err, tc.ok)
		}
	}
}
