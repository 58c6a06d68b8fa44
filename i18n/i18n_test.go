package i18n

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseAndLocale(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Lang
		ok   bool
	}{{"en", En, true}, {"zh", Zh, true}, {"zh_CN.UTF-8", Zh, true}, {"zh-TW", Zh, true}, {"ZH", Zh, true},
		{"en_GB.UTF-8", En, true}, {"C.UTF-8", En, true}, {"POSIX", En, true}, {"fr_FR", En, false}, {"", En, false}} {
		got, ok := Parse(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tt := range []struct {
		env  map[string]string
		want Lang
	}{
		{nil, En},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, Zh},
		{map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"}, En}, // LC_ALL wins
		{map[string]string{"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, Zh},
		{map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "zh_CN.UTF-8"}, Zh},
		{map[string]string{"LANG": "de_DE.UTF-8"}, En},
	} {
		if got := FromLocale(env(tt.env)); got != tt.want {
			t.Errorf("FromLocale(%v) = %v, want %v", tt.env, got, tt.want)
		}
	}
	zhEnv := env(map[string]string{"LANG": "zh_CN.UTF-8"})
	if l, err := Choose("", zhEnv); l != Zh || err != nil {
		t.Errorf(`Choose("", LANG=zh_CN) = %v, %v; want zh`, l, err)
	}
	if l, err := Choose("en", zhEnv); l != En || err != nil {
		t.Errorf(`Choose("en", LANG=zh_CN) = %v, %v; want en: the flag overrides the locale`, l, err)
	}
	for _, bad := range []string{"fr", "zh_CN", "english"} {
		if _, err := Choose(bad, zhEnv); err == nil {
			t.Errorf("Choose(%q) gave no error", bad)
		}
	}
}

func TestFallsBackToEnglish(t *testing.T) {
	const s = "a text no catalog holds"
	if Zh.T(s) != s || En.T(s) != s {
		t.Errorf("an unknown text is not returned as it is")
	}
	if got := En.Count(1, "%d entry", "%d entries"); got != "1 entry" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := En.Count(3, "%d entry", "%d entries"); got != "3 entries" {
		t.Errorf("Count(3) = %q", got)
	}
}

// uses finds every literal text the module's code gives the catalog:
// the first argument of a call to a method or function named T, F or N,
// and the second and third of Count.
func uses(t *testing.T) map[string][]string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module root %s has no go.mod: %v", root, err)
	}
	found := map[string][]string{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bin") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		// NB: a file that only calls a Lang's methods need not import
		// this package, so every file is read.
		self := filepath.Dir(path) == filepath.Join(root, "i18n")
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				if self {
					name = fn.Name
				}
			}
			var args []ast.Expr
			switch name {
			case "T", "F", "N":
				args = call.Args[:min(1, len(call.Args))]
			case "Count":
				if len(call.Args) == 3 {
					args = call.Args[1:]
				}
			}
			for _, a := range args {
				lit, ok := a.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					continue
				}
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).Filename)
				found[s] = append(found[s], fmt.Sprintf("%s:%d", rel, fset.Position(lit.Pos()).Line))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Every text the code asks for has a Chinese translation, and the
// catalog holds no translation of a text nobody asks for.
func TestEveryTextIsTranslated(t *testing.T) {
	found := uses(t)
	if len(found) < 10 {
		t.Fatalf("found only %d texts in the module's code: is the scan broken?", len(found))
	}
	var missing []string
	for s, where := range found {
		if s == "" {
			continue
		}
		if !Zh.Has(s) {
			missing = append(missing, fmt.Sprintf("%q (%s)", s, where[0]))
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("no Chinese for %s", m)
	}
	var unused []string
	for en := range zh {
		if _, ok := found[en]; !ok {
			unused = append(unused, en)
		}
	}
	slices.Sort(unused)
	for _, u := range unused {
		t.Errorf("the catalog translates %q, which no code asks for", u)
	}
}

// A translation keeps its format's verbs: the same verb for each
// argument, and every argument used.
func TestTranslationsKeepTheirVerbs(t *testing.T) {
	for en, tr := range zh {
		a, errA := verbs(en)
		b, errB := verbs(tr)
		if errA != nil || errB != nil {
			t.Errorf("%q → %q: %v %v", en, tr, errA, errB)
			continue
		}
		if !slices.Equal(a, b) {
			t.Errorf("%q has verbs %q, its translation %q has %q", en, a, tr, b)
		}
		if strings.TrimSpace(tr) == "" {
			t.Errorf("%q is translated as nothing", en)
		}
	}
}

func TestVerbs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
	}{
		{"plain", ""},
		{"100%%", ""},
		{"%s is %s in term %d", "ssd"},
		{"%[1]s 在任期 %[3]d 是%[2]s", "ssd"},
		{"%-8s %6.1f%%", "sf"},
	} {
		got, err := verbs(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("verbs(%q) = %v, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

// verbs returns the verb used for each argument of a format, by argument
// number.
func verbs(format string) ([]byte, error) {
	var out []byte
	arg := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		// Flags, width and precision, with an optional [n] index.
		for i < len(format) && strings.IndexByte("+-# 0123456789.*", format[i]) >= 0 {
			i++
		}
		if i < len(format) && format[i] == '[' {
			j := strings.IndexByte(format[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unclosed [ in %q", format)
			}
			n, err := strconv.Atoi(format[i+1 : i+j])
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad index in %q", format)
			}
			arg = n - 1
			i += j + 1
			for i < len(format) && strings.IndexByte("+-# 0123456789.", format[i]) >= 0 {
				i++
			}
		}
		if i >= len(format) {
			return nil, fmt.Errorf("%q ends in %%", format)
		}
		if format[i] == '%' {
			continue
		}
		for len(out) <= arg {
			out = append(out, 0)
		}
		if out[arg] != 0 && out[arg] != format[i] {
			return nil, fmt.Errorf("argument %d is used as %%%c and %%%c in %q", arg+1, out[arg], format[i], format)
		}
		out[arg] = format[i]
		arg++
	}
	for k, v := range out {
		if v == 0 {
			return nil, fmt.Errorf("argument %d is not used in %q", k+1, format)
		}
	}
	return out, nil
}

// A Chinese translation leaves nothing in English but the words Chinese
// text keeps on purpose (keys, commands, raft's own names): "match · next
// · 状态" was a heading half translated.
func TestTranslationsLeaveNoEnglish(t *testing.T) {
	for en, tr := range zh {
		if w := Foreign(tr); len(w) > 0 {
			t.Errorf("%q → %q keeps English: %q", en, tr, w)
		}
	}
}

func TestForeign(t *testing.T) {
	for s, want := range map[string]string{
		"match · next · 状态":         "match next",
		"投给 etcd-1 · 12.5ms":        "",
		"按 Esc 关闭; %[2]s 在 %d 之后":   "",
		"/registry/pods/default=v1": "",
		"领导者记录的 Match":              "",
		"follower 任期 2":             "follower",
	} {
		if got := strings.Join(Foreign(s), " "); got != want {
			t.Errorf("Foreign(%q) = %q, want %q", s, got, want)
		}
	}
}

// Reword reads a text's arguments back out against the English format
// that made it and fills them into the format's translation, reordered
// arguments and all; a text the format did not make is left alone.
func TestReword(t *testing.T) {
	f := "%s overwrote its own log from index %d while leading term %d" // zh reorders: %[3]d … %[2]d
	en := fmt.Sprintf(f, "etcd-1", 7, 3)
	if got, ok := Zh.Reword(f, en); !ok || got != Zh.F(f, "etcd-1", 7, 3) {
		t.Errorf("Reword(%q) = %q, %v; want %q", en, got, ok, Zh.F(f, "etcd-1", 7, 3))
	}
	if got, ok := En.Reword(f, en); !ok || got != en {
		t.Errorf("English Reword(%q) = %q, %v", en, got, ok)
	}
	q := "on key %q, %s"
	if got, ok := Zh.Reword(q, `on key "a b", why`); !ok || got != `在键 "a b" 上，why` {
		t.Errorf("Reword %%q = %q, %v", got, ok)
	}
	if got, ok := Zh.Reword(f, "etcd-1 overwrote something else"); ok || got != "etcd-1 overwrote something else" {
		t.Errorf("Reword of another text = %q, %v", got, ok)
	}
}
