package console

import (
	"strings"
	"testing"
)

// FuzzArgs feeds the console's argument parser anything: split (words,
// quotes and escapes, byte for byte) and each verb's flags. It answers with
// words or an error, never a panic; a word holds only bytes of the line;
// and the words, quoted again, split back to themselves.
func FuzzArgs(f *testing.F) {
	for _, s := range []string{
		`put foo bar`, `get "" --prefix --keys-only -w json`, `put 'a b' "c\"d" e\ f`,
		`txn -i`, `member add m --peer-urls=http://h:1 --learner`, `watch /a --prefix --for 1s &`,
		`lease grant 10`, `get a --rev=-1 --limit 0x10`, "put k\xffey v\xfe",
	} {
		f.Add(s)
	}
	verbs := []string{"put", "get", "del", "watch", "txn", "lease", "member", "endpoint", "compaction", "wait", "partition", "link"}
	f.Fuzz(func(t *testing.T, line string) {
		words, err := split(line)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without words")
			}
			return
		}
		for _, w := range words {
			for i := 0; i < len(w); i++ {
				if strings.IndexByte(line, w[i]) < 0 {
					t.Fatalf("word %q has byte %q, which the line %q does not", w, w[i], line)
				}
			}
		}
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		}
		again, err := split(strings.Join(quoted, " "))
		if err != nil || strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
			t.Fatalf("%q split to %q; quoted again, to %q (%v)", line, words, again, err)
		}
		// Every verb's flag set takes the words, or refuses them.
		for _, v := range verbs {
			fl := newFlags(v)
			fl.Bool("prefix", false, "")
			fl.Int64("rev", 0, "")
			fl.Duration("for", 0, "")
			_, _ = fl.parse(words, 0, -1, v)
		}
	})
}
