package etcdcompare

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// A Step is one line of a session (and the lines of its here-document).
type Step struct {
	Line int    // where it starts in the session file
	Text string // as written, here-document included
	// Command is an etcdctl command line (shell syntax, without "etcdctl");
	// empty for a directive.
	Command string
	// Stdin is the body of a here-document (`txn -i <<EOF` ... `EOF`), one
	// line each.
	Stdin []string
	// For: a watch runs this long before it is interrupted (@watch DUR).
	For time.Duration
	// Stop: the members to freeze (SIGSTOP) (@stop m2 m3).
	Stop []string
	// Kill: the members to kill (SIGKILL; raftsim: crash) (@kill m2).
	Kill []string
	// Sleep: let this much time pass (@sleep DUR).
	Sleep time.Duration
}

// Members are the three members of every session's cluster.
var Members = []string{"m1", "m2", "m3"}

// ParseFile reads a session file.
func ParseFile(path string) ([]Step, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(b))
}

// Parse reads a session:
//
//	# a comment
//	put foo bar                  an etcdctl command (shell quoting)
//	txn -i <<EOF                 a command reading a here-document
//	...
//	EOF
//	@watch 1s watch foo --rev=2  a watch, interrupted after 1s (raftsim: --for 1s)
//	@stop m2 m3                  freeze members (SIGSTOP; raftsim: stall)
//	@kill m2                     kill members (SIGKILL; raftsim: crash)
//	@sleep 2s                    let time pass
func Parse(name, text string) ([]Step, error) {
	lines := strings.Split(text, "\n")
	var steps []Step
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		st := Step{Line: i + 1, Text: line}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s:%d: %s", name, i+1, fmt.Sprintf(format, a...))
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "@stop", "@kill":
			if len(fields) < 2 {
				return nil, bad("%s needs members", fields[0])
			}
			for _, m := range fields[1:] {
				if !isMember(m) {
					return nil, bad("%s: no member %q (want m1, m2 or m3)", fields[0], m)
				}
			}
			if fields[0] == "@stop" {
				st.Stop = fields[1:]
			} else {
				st.Kill = fields[1:]
			}
		case "@sleep":
			d, err := duration(fields)
			if err != nil {
				return nil, bad("@sleep: %v", err)
			}
			st.Sleep = d
		case "@watch":
			d, err := duration(fields[:min(len(fields), 2)])
			if err != nil || len(fields) < 3 || fields[2] != "watch" {
				return nil, bad("want @watch DURATION watch ARGS")
			}
			st.For = d
			st.Command = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(line, "@watch"), " "+fields[1]))
		default:
			if strings.HasPrefix(fields[0], "@") {
				return nil, bad("unknown directive %s", fields[0])
			}
			st.Command = line
			if j := strings.Index(line, "<<"); j >= 0 {
				end := strings.Trim(strings.TrimSpace(line[j+2:]), `'"`)
				if end == "" {
					return nil, bad("a here-document needs its terminator, like <<EOF")
				}
				st.Command = strings.TrimSpace(line[:j])
				for i++; i < len(lines) && strings.TrimSpace(lines[i]) != end; i++ {
					st.Stdin = append(st.Stdin, lines[i])
					st.Text += "\n" + lines[i]
				}
				if i == len(lines) {
					return nil, bad("the here-document has no %s line", end)
				}
				st.Text += "\n" + end
			}
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func duration(fields []string) (time.Duration, error) {
	if len(fields) != 2 {
		return 0, fmt.Errorf("want one duration")
	}
	d, err := time.ParseDuration(fields[1])
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("bad duration %q", fields[1])
	}
	return d, nil
}

func isMember(name string) bool {
	for _, m := range Members {
		if m == name {
			return true
		}
	}
	return false
}

// Transcript formats what a session printed: each step as "$ " and its
// text, then its normalised output.
func Transcript(steps []Step, outputs []string) string {
	var b strings.Builder
	for i, st := range steps {
		b.WriteString("$ " + st.Text + "\n")
		if i < len(outputs) {
			b.WriteString(outputs[i])
		}
	}
	return b.String()
}
