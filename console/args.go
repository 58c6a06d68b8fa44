package console

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"
)

// split breaks a line into words as a shell does: spaces separate words,
// '…' and "…" quote (so "" is an empty word, as in get "" --prefix), and a
// backslash escapes the next byte outside single quotes. It works on bytes
// (every character it looks for is ASCII), so that a key that is not
// UTF-8 reaches etcd as the bytes typed, as the shell hands them to
// etcdctl; a range over the string's runes turned each bad byte into
// U+FFFD.
func split(line string) ([]string, error) {
	var words []string
	var cur []byte
	inWord := false
	quote := byte(0)
	escaped := false
	for i := 0; i < len(line); i++ {
		r := line[i]
		switch {
		case escaped:
			cur = append(cur, r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur = append(cur, r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case quote == '"':
			if r == '"' {
				quote = 0
			} else {
				cur = append(cur, r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, string(cur))
				cur = cur[:0]
				inWord = false
			}
		default:
			cur = append(cur, r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if escaped {
		return nil, fmt.Errorf("a backslash at the end of the line")
	}
	if inWord {
		words = append(words, string(cur))
	}
	return words, nil
}

// flags is a verb's flag set with etcdctl's global flags on it.
type flags struct {
	*pflag.FlagSet
	endpoints *string
	writeOut  *string
	// commandTimeout is etcdctl's --command-timeout: how long a request
	// waits for its answer.
	commandTimeout *time.Duration
}

func newFlags(verb string) *flags {
	fs := pflag.NewFlagSet(verb, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f := &flags{FlagSet: fs}
	f.endpoints = fs.String("endpoints", "", "members to talk to, comma-separated (default: every member)")
	f.writeOut = fs.StringP("write-out", "w", "simple", "output format: simple, json, table or fields")
	f.commandTimeout = fs.Duration("command-timeout", defaultCommandTimeout, "timeout for short running command (excluding dial timeout)")
	return f
}

// parse parses args and checks the positional argument count.
func (f *flags) parse(args []string, min, max int, usage string) ([]string, error) {
	if err := f.Parse(args); err != nil {
		if err == pflag.ErrHelp {
			return nil, fmt.Errorf("for help, type: help %s", f.Name())
		}
		return nil, err
	}
	rest := f.Args()
	if len(rest) < min || (max >= 0 && len(rest) > max) {
		return nil, fmt.Errorf("%s (usage: %s)", countMsg(f.Name(), min, max, len(rest)), usage)
	}
	switch *f.writeOut {
	case "simple", "table", "json", "fields":
	default:
		return nil, fmt.Errorf("unsupported output format %q (want simple, json, table or fields)", *f.writeOut)
	}
	if *f.commandTimeout <= 0 {
		return nil, fmt.Errorf("--command-timeout must be positive, not %s", *f.commandTimeout)
	}
	return rest, nil
}

func countMsg(verb string, min, max, got int) string {
	switch {
	case min == max && min == 0:
		return fmt.Sprintf("%s takes no arguments, got %d", verb, got)
	case min == max:
		return fmt.Sprintf("%s needs %d argument(s), got %d", verb, min, got)
	case max < 0:
		return fmt.Sprintf("%s needs at least %d argument(s), got %d", verb, min, got)
	}
	return fmt.Sprintf("%s takes %d to %d arguments, got %d", verb, min, max, got)
}
