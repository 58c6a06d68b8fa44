package etcdctl

import "testing"

// TestTxnLines reads compare and request lines as etcdctl does, with its
// error messages, and writes each back to a line that reads the same.
func TestTxnLines(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`mod("/registry/pods/p") = "5"`, `mod("/registry/pods/p") = "5"`},
		{`m("k") != "0"`, `mod("k") != "0"`},
		{`version("k") > "1"`, `ver("k") > "1"`},
		{`c("k") < "3"`, `create("k") < "3"`},
		{`value("k") = "a b"`, `val("k") = "a b"`},
		{`lease("k") = "694d77aa9e38260f"`, `lease("k") = "694d77aa9e38260f"`},
		{`bogus`, `error: malformed comparison: bogus`},
		{`mod("foo") = "x"`, `error: invalid txn compare request: mod("foo") = "x"`},
		{`what("foo") = "1"`, `error: malformed comparison: what("foo") = "1" (unknown target what)`},
	} {
		c, err := ParseCompare(tc.line)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = FormatCompare(c)
		}
		if got != tc.want {
			t.Errorf("compare %q: got %q, want %q", tc.line, got, tc.want)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{`put k v`, `put k v`},
		{`put "a key" 'a value' --prev-kv --lease=1f`, `put "a key" "a value" --lease=1f --prev-kv`},
		{`get /registry/ --prefix --limit=2 --rev=5 --keys-only`, `get /registry/ --prefix --rev=5 --limit=2 --keys-only`},
		{`get a c`, `get a c`},
		{`get "" --from-key --sort-by=modify --order=descend`, `get "" --from-key --sort-by=MODIFY --order=DESCEND`},
		{`del /k --prefix --prev-kv`, `del /k --prefix --prev-kv`},
		{`get a --prefix --min-mod-rev=2 --max-create-rev=9`, `get a --prefix --max-create-rev=9 --min-mod-rev=2`},
		{`get a --min-create-rev=3 --max-mod-rev=4`, `get a --min-create-rev=3 --max-mod-rev=4`},
		{`get a --min-mod-rev=5 --max-mod-rev=2`, `error: getMinModRev(=5) > getMaxModRev(=2)`},
		{`get a --min-create-rev=5 --max-create-rev=2`, `error: getMinCreateRev(=5) > getMaxCreateRev(=2)`},
		{`put k --ignore-value --ignore-lease`, `put k --ignore-value --ignore-lease`},
		{`put k v --ignore-value`, `error: put command needs only 1 argument when 'ignore-value' is set`},
		{`put foo`, `error: put command needs 1 argument and input from stdin or 2 arguments`},
		{`get`, `error: invalid txn compare request: get`},
		{`get k --bogus`, `error: invalid txn request: get k --bogus`},
		{`watch k x`, `error: invalid txn request: watch k x`},
	} {
		op, err := ParseRequest(tc.line)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = FormatRequest(op)
			again, err := ParseRequest(got)
			if err != nil || FormatRequest(again) != got {
				t.Errorf("request %q: %q does not read back (%v)", tc.line, got, err)
			}
		}
		if got != tc.want {
			t.Errorf("request %q: got %q, want %q", tc.line, got, tc.want)
		}
	}
}
