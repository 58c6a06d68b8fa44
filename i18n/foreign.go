package i18n

import (
	"regexp"
	"strings"
)

// kept are the Latin-script words Chinese text keeps on purpose: what a
// person types or presses (etcdctl's commands and flags, key names), the
// names of raft's and etcd's own things (a lease's TTL, the paper's safety
// properties) (HardState, the leader's Match and
// Next for a follower, written beside their Chinese), file formats and
// units. Anything else in Latin letters in a Chinese window is a word
// nobody translated.
var kept = map[string]bool{
	// Keys and key names.
	"Enter": true, "Esc": true, "Tab": true, "PgUp": true, "PgDn": true, "Space": true, "F": true,
	"shift": true, "b": true, "g": true, "p": true, "w": true, "z": true,
	// What the command box and the scenario format take.
	"put": true, "get": true, "watch": true, "crash": true, "endpoint": true, "status": true,
	"table": true, "help": true, "wait": true, "prefix": true, "foo": true, "bar": true,
	"expect": true, "expect_always": true, "linearizable": true, "false": true, "seed": true,
	// A request's operation as etcd's API and etcdctl name it (the verb a
	// user types), etcdctl's txn syntax, a watch event's type (etcd's PUT,
	// DELETE), and the --bug names.
	"delete": true, "txn": true, "compact": true, "lease": true, "grant": true, "revoke": true,
	"keep": true, "alive": true, "timetolive": true, "list": true, "member": true, "add": true,
	"remove": true, "promote": true, "update": true, "alarm": true, "disarm": true, "if": true, "then": true,
	"else": true, "PUT": true, "DELETE": true, "lose": true, "unsynced": true,
	// The names of the Raft paper's safety properties (Figure 3), which
	// the lessons quote.
	"Election": true, "Safety": true, "State": true, "Machine": true, "Log": true,
	"Matching": true, "Leader": true, "Completeness": true, "Append": true, "Only": true,
	// Names of things: programs, raft's and etcd's fields, formats, units.
	"raftsim": true, "etcd": true, "etcdctl": true, "etcdutl": true, "NOSPACE": true, "DB": true, "SIZE": true, "snapshot": true, "restore": true, "ID": true, "raft": true, "Apache": true, "apiserver": true, "HardState": true,
	"Match": true, "Next": true, "tick": true, "PNG": true, "YAML": true, "TTL": true, "ms": true, "s": true,
}

var (
	latinWord = regexp.MustCompile(`[A-Za-z][A-Za-z_]*`)
	// What is not a word: format verbs (%d, %[2]s), what the window
	// fills in with data (etcd-1, /registry/pods, 12.5ms, 1/36×), and a
	// command-line flag as etcd spells it (--force-new-cluster).
	notWords = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z]|[A-Za-z0-9_]*[0-9][A-Za-z0-9_]*|/[^\s]*|--[a-z][a-z-]*`)
)

// Foreign returns the Latin-script words of s that Chinese text does not
// keep on purpose: in a Chinese window, words left in English. Format
// verbs, words with digits in them (etcd-1, 2s) and paths are not words.
func Foreign(s string) []string {
	s = notWords.ReplaceAllString(s, " ")
	var out []string
	for _, w := range latinWord.FindAllString(s, -1) {
		if !kept[strings.Trim(w, "_")] {
			out = append(out, w)
		}
	}
	return out
}
