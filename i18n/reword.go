package i18n

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// verb is a format verb, with an explicit argument index if any.
var verb = regexp.MustCompile(`%(\[(\d+)\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// rewordCache holds the pattern of each English format Reword has read.
var rewordCache sync.Map // format → *regexp.Regexp

// Reword says in l a text that format made in English (with En.F or
// fmt.Sprintf): it reads the arguments back out of text and fills them
// into format's translation. It reports false if text is not what format
// makes. Arguments are matched shortest first, so a format should end in
// words, or its last argument should hold no text of the words after it.
// It is for texts a history keeps in English, such as a safety
// violation's detail, so that their English and their translation come
// from the one format.
func (l Lang) Reword(format, text string) (string, bool) {
	pat, ok := rewordCache.Load(format)
	if !ok {
		var b strings.Builder
		b.WriteString(`^`)
		last := 0
		for _, m := range verb.FindAllStringIndex(format, -1) {
			b.WriteString(regexp.QuoteMeta(format[last:m[0]]))
			if format[m[1]-1] == '%' {
				b.WriteString(`%`)
			} else {
				b.WriteString(`(.*?)`)
			}
			last = m[1]
		}
		b.WriteString(regexp.QuoteMeta(format[last:]) + `$`)
		pat, _ = rewordCache.LoadOrStore(format, regexp.MustCompile(b.String()))
	}
	m := pat.(*regexp.Regexp).FindStringSubmatch(text)
	if m == nil {
		return text, false
	}
	if l == En {
		return text, true
	}
	args := make([]any, len(m)-1)
	for i, a := range m[1:] {
		args[i] = a
	}
	// The arguments are text now: every verb of the translation takes
	// them as it finds them (%s), keeping its argument index.
	tr := verb.ReplaceAllStringFunc(l.T(format), func(v string) string {
		if strings.HasSuffix(v, "%") {
			return v
		}
		if sm := verb.FindStringSubmatch(v); sm[1] != "" {
			return "%" + sm[1] + "s"
		}
		return "%s"
	})
	return fmt.Sprintf(tr, args...), true
}
