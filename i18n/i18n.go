package i18n

import (
	"fmt"
	"strings"
)

// Lang is a language raftsim speaks.
type Lang uint8

// The languages.
const (
	En Lang = iota // English, the default
	Zh             // Simplified Chinese
)

// Langs lists every language, in the order flags name them.
var Langs = []Lang{En, Zh}

// String returns the language's code, as --lang takes it: "en" or "zh".
func (l Lang) String() string {
	if l == Zh {
		return "zh"
	}
	return "en"
}

// Parse reads a language code as --lang takes it ("en", "zh"), or a
// locale name such as "zh_CN.UTF-8", "zh-TW" or "en_US". It reports false
// for anything else.
func Parse(s string) (Lang, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	// A locale is language[_territory][.codeset][@modifier].
	if i := strings.IndexAny(s, "_-.@"); i >= 0 {
		s = s[:i]
	}
	switch s {
	case "en", "c", "posix":
		return En, true
	case "zh":
		return Zh, true
	}
	return En, false
}

// FromLocale returns the language of the user's locale, as POSIX orders
// it for messages: LC_ALL, then LC_MESSAGES, then LANG; the first one set
// decides. A locale raftsim does not speak, or none, gives English.
func FromLocale(getenv func(string) string) Lang {
	for _, v := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if s := getenv(v); s != "" {
			l, _ := Parse(s)
			return l
		}
	}
	return En
}

// Choose returns the language a --lang flag names, or the locale's when
// the flag is empty. It fails on a language raftsim does not speak.
func Choose(flag string, getenv func(string) string) (Lang, error) {
	if flag == "" {
		return FromLocale(getenv), nil
	}
	if l, ok := Parse(flag); ok && !strings.ContainsAny(flag, "_-.@") {
		return l, nil
	}
	return En, fmt.Errorf("--lang must be en or zh, not %q", flag)
}

// T returns the text in l. en is the English text, which is also the key
// into the catalog; without a translation T returns en.
func (l Lang) T(en string) string {
	if l == Zh {
		if s, ok := zh[en]; ok {
			return s
		}
	}
	return en
}

// F formats args with the format string en, translated into l. A
// translation may reorder its arguments with explicit indexes (%[2]s).
func (l Lang) F(en string, args ...any) string { return fmt.Sprintf(l.T(en), args...) }

// N marks en as text to translate later (where it is kept in a table,
// say) and returns it unchanged; the catalog's test finds it by this mark.
func N(en string) string { return en }

// Has reports whether the catalog translates en into l; English has every
// text.
func (l Lang) Has(en string) bool {
	if l == En {
		return true
	}
	_, ok := zh[en]
	return ok
}
