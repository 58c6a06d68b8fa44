package etcdcompare

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Normalizer rewrites what differs between two runs of one session for
// reasons that are no difference: how long a request took, how big a bbolt
// file is, a hash of it, and IDs drawn at run time (leases, members added
// at run time; etcd draws them from the clock). Bootstrap member IDs and
// the cluster ID are kept: both sides compute them from the same URLs and
// token. One Normalizer serves one session, so that an ID keeps its
// placeholder from step to step.
type Normalizer struct {
	keep map[uint64]bool   // IDs compared as they are
	ids  map[uint64]string // run-time IDs seen so far, by value

	perEndpoint bool // the command asks every endpoint for its own answer
	snapshot    bool // snapshot status: about a bbolt file
}

// NewNormalizer returns a normalizer that keeps the given IDs.
func NewNormalizer(keep ...uint64) *Normalizer {
	n := &Normalizer{keep: map[uint64]bool{}, ids: map[uint64]string{}}
	for _, id := range keep {
		n.keep[id] = true
	}
	return n
}

var (
	tookRE     = regexp.MustCompile(`took = \S+`)
	tookJSONRE = regexp.MustCompile(`"took":"[^"]*"`)
	// Sizes and hashes in JSON and in -w fields.
	sizeJSONRE   = regexp.MustCompile(`"(dbSize|dbSizeInUse)":\d+`)
	sizeFieldsRE = regexp.MustCompile(`"(DBSize|DBSizeInUse)" : \d+`)
	// A snapshot file's hash and size are bbolt's bytes.
	fileJSONRE   = regexp.MustCompile(`"(hash|totalSize)":\d+`)
	fileFieldsRE = regexp.MustCompile(`"(Hash|TotalSize)" : \d+`)
	tookFieldsRE = regexp.MustCompile(`"Took" : \S+`)
	// Which member answers a request sent to every endpoint is the
	// balancer's choice (gRPC's round robin starts at a random endpoint).
	// The header is "header" in most answers, "Header" in a watch's, and
	// flattened into the object in a lease's (clientv3 embeds it). So is
	// the address of the member a failed call went to, in clientv3's log.
	headerMemberRE = regexp.MustCompile(`((?:"[hH]eader":\{|^\{)"cluster_id":\d+,"member_id":)\d+`)
	logPeerRE      = regexp.MustCompile(`"peer":"Peer\{Addr: '127\.0\.0\.1:\d+'`)
	fieldsMemberRE = regexp.MustCompile(`^"MemberID" : \d+`)
	// clientv3's log lines: when, and the connection's addresses.
	logTimeRE   = regexp.MustCompile(`"ts":"[^"]*"`)
	logTargetRE = regexp.MustCompile(`"target":"etcd-endpoints://0x[0-9a-f]+/`)
	logLocalRE  = regexp.MustCompile(`LocalAddr: '127\.0\.0\.1:\d+'`)
	paddedIDRE  = regexp.MustCompile(`Member +<id`)
	// How gRPC words a deadline at a frozen member depends on which side
	// noticed first.
	logErrorRE = regexp.MustCompile(`"error":"rpc error: code = DeadlineExceeded desc = (context deadline exceeded|context deadline exceeded while waiting for connections to become ready|stream terminated by RST_STREAM with error code: CANCEL)"`)
	// An ID: 13 to 16 hex digits (etcd prints member IDs with %x, lease
	// IDs with %016x), or a decimal of 15 digits or more (JSON).
	hexIDRE = regexp.MustCompile(`\b[0-9a-f]{13,16}\b`)
	decIDRE = regexp.MustCompile(`\b[0-9]{15,20}\b`)
)

// placeholders for table columns and simple-format fields.
var columnPlaceholders = map[string]string{
	"TOOK":                  "<duration>",
	"DB SIZE":               "<size>",
	"IN USE":                "<size>",
	"PERCENTAGE NOT IN USE": "<percent>",
}

// snapshotColumns are placeholders for `snapshot status` tables.
var snapshotColumns = map[string]string{"HASH": "<hash>", "TOTAL SIZE": "<size>"}

// Normalize rewrites the output of one etcdctl command.
func (n *Normalizer) Normalize(command, out string) string {
	verb := strings.Join(strings.Fields(command + " _ _")[:2], " ")
	n.perEndpoint = verb == "endpoint status" || verb == "endpoint hashkv"
	n.snapshot = verb == "snapshot status"
	out = logLinesLast(n.normalize(out))
	if verb == "lease timetolive" {
		out = remainingTTL(out)
	}
	if verb == "endpoint health" {
		// etcdctl checks every endpoint at once and prints them in the
		// order the answers came.
		out = sortHealth(out)
	}
	if strings.HasPrefix(verb, "member ") && strings.Contains(out, "<id") {
		out = sortMembers(out)
	}
	return out
}

// sortMembers sorts the members of a Cluster API answer: etcd lists them
// by ID, and a member added at run time has an ID drawn from the clock,
// so where it falls among the others is chance. Sorted: the lines of
// member list, the rows of its table, the items of ETCD_INITIAL_CLUSTER,
// the objects of a JSON "members" array.
func sortMembers(out string) string {
	if strings.HasPrefix(out, "+-") {
		return sortTableRows(out)
	}
	if strings.HasPrefix(out, `"ClusterID" : `) {
		// -w fields: the header, then a block for each member.
		i := strings.Index(out, "\n\"ID\" : ")
		if i < 0 {
			return out
		}
		blocks := strings.SplitAfter(out[i+1:], "\n\n")
		sort.Strings(blocks)
		return out[:i+1] + strings.Join(blocks, "")
	}
	lines := strings.SplitAfter(out, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && memberLineRE.MatchString(lines[j]) {
			j++
		}
		if j > i {
			sort.Strings(lines[i:j])
			i = j
			continue
		}
		l := lines[i]
		if v, ok := strings.CutPrefix(l, `ETCD_INITIAL_CLUSTER="`); ok {
			items := strings.Split(strings.TrimSuffix(strings.TrimSuffix(v, "\n"), `"`), ",")
			sort.Strings(items)
			lines[i] = `ETCD_INITIAL_CLUSTER="` + strings.Join(items, ",") + "\"\n"
		}
		if a, rest, ok := strings.Cut(l, `"members":[{`); ok {
			if body, tail, ok := strings.Cut(rest, "}]"); ok {
				items := strings.Split(body, "},{")
				sort.Strings(items)
				lines[i] = a + `"members":[{` + strings.Join(items, "},{") + "}]" + tail
			}
		}
		i++
	}
	return strings.Join(lines, "")
}

// memberLineRE is a line of member list's simple format.
var memberLineRE = regexp.MustCompile(`^\S+, (started|unstarted), `)

// sortTableRows sorts the body rows of a table that opens out.
func sortTableRows(out string) string {
	lines := strings.SplitAfter(out, "\n")
	if len(lines) < 5 {
		return out
	}
	end := 3
	for end < len(lines) && strings.HasPrefix(lines[end], "|") {
		end++
	}
	sort.Strings(lines[3:end])
	return strings.Join(lines, "")
}

func (n *Normalizer) normalize(out string) string {
	lines := strings.SplitAfter(out, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		if isRule(lines[i]) {
			j := i + 1
			for j < len(lines) && (isRule(lines[j]) || strings.HasPrefix(lines[j], "|")) {
				j++
			}
			b.WriteString(n.table(lines[i:j]))
			i = j
			continue
		}
		b.WriteString(n.line(lines[i]))
		i++
	}
	return b.String()
}

func isRule(l string) bool { return strings.HasPrefix(l, "+-") }

// line normalises a line outside a table.
func (n *Normalizer) line(l string) string {
	// etcd gives a request the client's deadline: when it passes, the
	// server's "request timed out" and the client's own "context deadline
	// exceeded" race, and either may be what etcdctl prints.
	// (etcd's answer may be any of its request-timeout errors: see
	// parseProposeCtxErr.)
	l = timedOutRE.ReplaceAllString(l, "Error: context deadline exceeded\n")
	l = timedOutLogRE.ReplaceAllString(l, `"error":"rpc error: code = DeadlineExceeded desc = context deadline exceeded"`)
	l = tookRE.ReplaceAllString(l, "took = <duration>")
	l = tookJSONRE.ReplaceAllString(l, `"took":"<duration>"`)
	l = sizeJSONRE.ReplaceAllString(l, `"$1":<n>`)
	l = sizeFieldsRE.ReplaceAllString(l, `"$1" : <n>`)
	l = tookFieldsRE.ReplaceAllString(l, `"Took" : <duration>`)
	if !n.perEndpoint {
		l = headerMemberRE.ReplaceAllString(l, "${1}<member>")
		l = fieldsMemberRE.ReplaceAllString(l, `"MemberID" : <member>`)
		l = logPeerRE.ReplaceAllString(l, `"peer":"Peer{Addr: '<member>'`)
	}
	l = logTimeRE.ReplaceAllString(l, `"ts":"<time>"`)
	l = logTargetRE.ReplaceAllString(l, `"target":"etcd-endpoints://<client>/`)
	l = logLocalRE.ReplaceAllString(l, `LocalAddr: '<local>'`)
	l = logErrorRE.ReplaceAllString(l, `"error":"rpc error: code = DeadlineExceeded desc = <deadline>"`)
	l = n.statusLine(l)
	if n.snapshot {
		l = fileJSONRE.ReplaceAllString(l, `"$1":<n>`)
		l = fileFieldsRE.ReplaceAllString(l, `"$1" : <n>`)
		if f := strings.Split(l, ", "); len(f) == 4 {
			f[0], f[3] = "<hash>", "<size>\n"
			l = strings.Join(f, ", ")
		}
	}
	// etcdctl prints member IDs with %16x: a shorter one is padded, and
	// how much is the clock's choice for a member added at run time.
	return paddedIDRE.ReplaceAllString(n.idsIn(l), "Member <id")
}

// statusLine normalises the sizes of an `endpoint status` line in the
// simple format: ENDPOINT, ID, VERSION, STORAGE VERSION, DB SIZE, IN USE,
// PERCENTAGE NOT IN USE, QUOTA, ...
func (n *Normalizer) statusLine(l string) string {
	f := strings.Split(strings.TrimSuffix(l, "\n"), ", ")
	if len(f) < 16 || !strings.HasSuffix(f[6], "%") {
		return l
	}
	f[4], f[5], f[6] = "<size>", "<size>", "<percent>"
	nl := ""
	if strings.HasSuffix(l, "\n") {
		nl = "\n"
	}
	return strings.Join(f, ", ") + nl
}

// idsIn replaces run-time IDs with placeholders numbered in the order they
// first appear.
func (n *Normalizer) idsIn(s string) string {
	s = hexIDRE.ReplaceAllStringFunc(s, func(t string) string {
		v, err := strconv.ParseUint(t, 16, 64)
		if err != nil {
			return t
		}
		return n.id(v, t)
	})
	return decIDRE.ReplaceAllStringFunc(s, func(t string) string {
		v, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return t
		}
		return n.id(v, t)
	})
}

// placeholderRE is a run-time ID's placeholder, as a session names it.
var placeholderRE = regexp.MustCompile(`<id[0-9]+>`)

// Expand writes into a session's command the run-time IDs that earlier
// output named <id1>, <id2>, ...: `lease revoke <id1>` revokes the lease
// `lease grant` printed first. IDs go in as etcdctl takes them, in hex.
func (n *Normalizer) Expand(command string) string {
	return placeholderRE.ReplaceAllStringFunc(command, func(p string) string {
		for v, name := range n.ids {
			if name == p {
				return fmt.Sprintf("%016x", v)
			}
		}
		return p
	})
}

func (n *Normalizer) id(v uint64, text string) string {
	if n.keep[v] {
		return text
	}
	p, ok := n.ids[v]
	if !ok {
		p = "<id" + strconv.Itoa(len(n.ids)+1) + ">"
		n.ids[v] = p
	}
	return p
}

// table normalises an etcdctl table (rules and | rows). If a cell changes,
// the table is drawn again as etcdctl draws it (headers centred, cells
// right-aligned), so that its widths follow the placeholders.
func (n *Normalizer) table(lines []string) string {
	var rows [][]string
	for _, l := range lines {
		if isRule(l) {
			continue
		}
		cells := strings.Split(strings.TrimSuffix(strings.TrimSpace(l), "|"), "|")[1:]
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return strings.Join(lines, "")
	}
	changed := false
	for r := 1; r < len(rows); r++ {
		for c, cell := range rows[r] {
			nc := n.idsIn(tookRE.ReplaceAllString(cell, "took = <duration>"))
			if c < len(rows[0]) {
				if p, ok := columnPlaceholders[rows[0][c]]; ok && cell != "" {
					nc = p
				}
				if p, ok := snapshotColumns[rows[0][c]]; ok && n.snapshot {
					nc = p
				}
			}
			if nc != cell {
				rows[r][c], changed = nc, true
			}
		}
	}
	if !changed {
		return strings.Join(lines, "")
	}
	return drawTable(rows)
}

func drawTable(rows [][]string) string {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	var b strings.Builder
	rule := func() {
		b.WriteString("+")
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "+")
		}
		b.WriteString("\n")
	}
	row := func(cells []string, header bool) {
		b.WriteString("|")
		for i, w := range widths {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			gap := w - utf8.RuneCountInString(c)
			if header {
				b.WriteString(" " + strings.Repeat(" ", gap/2) + c + strings.Repeat(" ", gap-gap/2) + " |")
			} else {
				b.WriteString(" " + strings.Repeat(" ", gap) + c + " |")
			}
		}
		b.WriteString("\n")
	}
	rule()
	row(rows[0], true)
	rule()
	for _, r := range rows[1:] {
		row(r, false)
	}
	rule()
	return b.String()
}

// sortHealth sorts the endpoints of `endpoint health` output: its lines,
// the rows of its table, the objects of its JSON array, the blocks of its
// fields.
func sortHealth(out string) string {
	switch {
	case strings.HasPrefix(out, "["):
		end := strings.Index(out, "]")
		if end < 0 {
			return out
		}
		items := strings.Split(strings.TrimSuffix(strings.TrimPrefix(out[:end], "[{"), "}"), "},{")
		sort.Strings(items)
		return "[{" + strings.Join(items, "},{") + "}]" + out[end+1:]
	case strings.HasPrefix(out, "+-"):
		return sortTableRows(out)
	case strings.HasPrefix(out, "\"Endpoint\""):
		blocks := strings.SplitAfter(out, "\n\n")
		sort.Strings(blocks)
		return strings.Join(blocks, "")
	}
	var health, rest []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.Contains(l, " is healthy: ") || strings.Contains(l, " is unhealthy: ") {
			health = append(health, l)
		} else if l != "" {
			rest = append(rest, l)
		}
	}
	sort.Strings(health)
	return strings.Join(append(health, rest...), "")
}

// logLinesLast moves clientv3's log lines (JSON on standard error) after
// the rest, sorted, each once: they are written from other goroutines, so
// where they fall among the output is chance, and so is whether a call
// whose deadline passes is attempted once more in the last instant.
func logLinesLast(out string) string {
	var rest, logs []string
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(l, `{"level":`) {
			logs = append(logs, attemptRE.ReplaceAllString(l, `"attempt":<n>`))
		} else if l != "" {
			rest = append(rest, l)
		}
	}
	sort.Strings(logs)
	return strings.Join(append(rest, slices.Compact(logs)...), "")
}

var attemptRE = regexp.MustCompile(`"attempt":\d+`)

// etcd's request-timeout errors, on etcdctl's error line and in clientv3's
// log.
var (
	timedOutRE    = regexp.MustCompile(`^Error: etcdserver: request timed out(, possibly due to (previous leader failure|connection lost))?\n$`)
	timedOutLogRE = regexp.MustCompile(`"error":"rpc error: code = Unavailable desc = etcdserver: request timed out(, possibly due to (previous leader failure|connection lost))?"`)
)

// The remaining TTL of a live lease in `lease timetolive` output, in each
// format: simple, JSON, fields.
var (
	remainingRE       = regexp.MustCompile(`granted with TTL\((\d+)s\), remaining\((\d+)s\)`)
	remainingJSONRE   = regexp.MustCompile(`"ttl":(\d+),"granted-ttl":(\d+)`)
	remainingFieldsRE = regexp.MustCompile(`"TTL" : (\d+)\n"GrantedTTL" : (\d+)`)
)

// remainingTTL replaces the remaining TTL of a live lease with <remaining>
// when it lies between 1s and the granted TTL: on a real etcd it is the
// wall time left (etcd rounds it down), so it reads 9s a moment after a
// 10s grant, and 8s once a slow machine has taken a second over the
// commands since. raftsim's exact value is checked by the console's
// golden file (console/testdata/mvcc.txt); an expired
// lease's -1 and any value out of that range stay as they are.
func remainingTTL(out string) string {
	within := func(remaining, granted string) bool {
		r, err1 := strconv.Atoi(remaining)
		g, err2 := strconv.Atoi(granted)
		return err1 == nil && err2 == nil && r >= 1 && r <= g
	}
	out = remainingRE.ReplaceAllStringFunc(out, func(m string) string {
		s := remainingRE.FindStringSubmatch(m)
		if !within(s[2], s[1]) {
			return m
		}
		return "granted with TTL(" + s[1] + "s), remaining(<remaining>)"
	})
	out = remainingJSONRE.ReplaceAllStringFunc(out, func(m string) string {
		s := remainingJSONRE.FindStringSubmatch(m)
		if !within(s[1], s[2]) {
			return m
		}
		return `"ttl":<remaining>,"granted-ttl":` + s[2]
	})
	return remainingFieldsRE.ReplaceAllStringFunc(out, func(m string) string {
		s := remainingFieldsRE.FindStringSubmatch(m)
		if !within(s[1], s[2]) {
			return m
		}
		return "\"TTL\" : <remaining>\n\"GrantedTTL\" : " + s[2]
	})
}
