package ui

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/raftsrc"
	"github.com/raftsim/raftsim/sim"
)

// WhyCard is what the "why" card shows of a clicked message (issue 32):
// raft's own log lines that led to it, cited by file and line inside
// go.etcd.io/raft/v3, and the function around the deciding line, from
// raft's source embedded in the binary (package raftsrc), that line
// highlighted. It is made once, when the card opens: the world on screen
// captures no citations (that would slow every frame and every seek), so
// the card replays the session up to now with them (sim.ReplayWhy); the
// same commands give the same world, its messages the same IDs.
type WhyCard struct {
	Msg sim.MessageView
	// Head, when set, is what the card is about instead of Msg: the event
	// a lesson's why: step opened it on (whycard_lesson.go).
	Head string
	Lede string   // what the lines are: "raft's reasons for sending it", or why there are none
	Log  []string // raft's lines, "raft.go:1259 (*raft).Step: 2 [logterm: ...] rejected MsgVote ..."
	// Gloss is a Chinese gloss of each line of Log ("" where there is none).
	Gloss []string
	// The source shown: the function Func of File, lines First.. of it,
	// with line Hi (the last citation's) highlighted.
	File, Func string
	First, Hi  int
	Source     []string
	// Loading says raft's source is being fetched (the web page).
	Loading bool
	want    int // 1 while the source is still to be put on the card
	hiIdx   int // the index in Log of the deciding line
}

var citeLine = regexp.MustCompile(`^([\w/]+\.go):(\d+) (\S+): `)

// OpenWhy opens the card for message m.
func (a *App) OpenWhy(m sim.MessageView) {
	a.Why = BuildWhyCard(a.S, m, a.Lang)
}

// BuildWhyCard makes the card of message m of the session on screen.
func BuildWhyCard(s *Session, m sim.MessageView, l i18n.Lang) *WhyCard {
	c := &WhyCard{Msg: m}
	// The world's own log: a lesson's steps are in it too, not in the
	// session's branch.
	now := s.World()
	w, err := sim.ReplayWhy(now.Config(), now.Commands(), now.Now())
	if err != nil {
		c.Lede = l.F("raft's reasons cannot be shown: %v", err)
		return c
	}
	send, arrival := w.MessageWhy(m.ID)
	switch {
	case send != "":
		c.Lede = l.F("raft's reasons for sending it, in %s:", m.From)
		c.Log = strings.Split(send, "\n")
	case arrival != "":
		c.Lede = l.F("what %s's raft made of it:", m.To)
		c.Log = strings.Split(arrival, "\n")
	default:
		c.Lede = l.T("raft logged nothing for it: a routine message (a heartbeat, an append to a follower in step)")
		return c
	}
	c.fill(c.deciding(), l)
	return c
}

// fill glosses the card's lines and puts the source around line hi of
// them on it.
func (c *WhyCard) fill(hi int, l i18n.Lang) {
	for _, ln := range c.Log {
		c.Gloss = append(c.Gloss, glossZh(l, ln))
	}
	c.want, c.hiIdx = 1, hi
	c.loadSource()
}

// loadSource puts the source around the deciding line on the card, if it
// is not there yet and raft's source is at hand. In the web page it is
// fetched the first time a card asks (raftsrc.Fetch): Loading says so,
// and the App calls loadSource again each frame until it is there.
func (c *WhyCard) loadSource() {
	if c.want == 0 || c.Source != nil {
		return
	}
	src, err := raftsrc.Embedded()
	c.Loading = errors.Is(err, raftsrc.ErrLoading)
	if err != nil {
		return
	}
	c.want = 0 // found or not, once
	mm := citeLine.FindStringSubmatch(c.Log[c.hiLog()])
	if mm == nil {
		return
	}
	n, _ := strconv.Atoi(mm[2])
	fn, first, last, ok := src.Func(mm[1], n)
	lines, _ := src.Lines(mm[1])
	if !ok || last > len(lines) {
		return
	}
	c.File, c.Func, c.First, c.Hi, c.Source = mm[1], fn, first, n, lines[first-1:last]
}

// hiLog is the index in Log of the deciding line.
func (c *WhyCard) hiLog() int { return c.hiIdx }

// deciding is the index in Log of the line whose source is shown: the last
// that names the message's type, or the type it answers (a MsgVoteResp is
// decided by the line that rejected or cast the MsgVote), else the last.
func (c *WhyCard) deciding() int {
	typ := c.Msg.Type.String()
	asked := strings.TrimSuffix(typ, "Resp")
	for i := len(c.Log) - 1; i >= 0; i-- {
		if strings.Contains(c.Log[i], typ) || strings.Contains(c.Log[i], asked+" ") {
			return i
		}
	}
	return len(c.Log) - 1
}

// Title is the card's first line.
func (c *WhyCard) Title(l i18n.Lang) string {
	if c.Head != "" {
		return fmt.Sprintf("%s · %s", l.T("why"), c.Head)
	}
	return fmt.Sprintf("%s · %s", l.T("why"), sim.DescribeMessageIn(l, c.Msg.MsgSummary))
}

// SourceTitle names the source shown: "raft.go: func (*raft).Step, lines 1081-1330 (go.etcd.io/raft/v3 v3.7.0)".
func (c *WhyCard) SourceTitle(l i18n.Lang) string {
	if c.Source == nil {
		return ""
	}
	return l.F("%s: %s, lines %d-%d (%s %s, Apache-2.0)", c.File, c.Func, c.First, c.First+len(c.Source)-1, raftsrc.Module, raftsrc.Version)
}

// Window is the part of the source that rows lines show: around the
// highlighted line, inside the function. It returns the first line's
// number and the lines.
func (c *WhyCard) Window(rows int) (int, []string) {
	if rows <= 0 || len(c.Source) == 0 {
		return c.First, nil
	}
	if len(c.Source) <= rows {
		return c.First, c.Source
	}
	start := min(max(c.Hi-c.First-rows/3, 0), len(c.Source)-rows)
	return c.First + start, c.Source[start : start+rows]
}

// glosses are Chinese glosses of raft's most common lines, by a fragment
// each holds.
var glosses = []struct{ frag, zh string }{
	{"is starting a new election", "开始新一轮选举（选举计时器到期）"},
	{"became candidate", "成为候选者"},
	{"became pre-candidate", "成为预候选者（预投票）"},
	{"became leader", "成为领导者"},
	{"became follower", "成为跟随者"},
	{"received a MsgVote message with higher term", "收到更高任期的投票请求，先更新任期"},
	{"cast MsgVote", "投出选票"},
	{"cast MsgPreVote", "投出预投票"},
	{"rejected MsgVote", "拒绝投票：对方的日志不比自己新，或本任期已投给别人"},
	{"rejected MsgPreVote", "拒绝预投票"},
	{"ignored a MsgVote message with higher term", "忽略更高任期的投票：仍在租约内（CheckQuorum），领导者还活着"},
	{"ignored a MsgPreVote message with higher term", "忽略更高任期的预投票：仍在租约内，领导者还活着"},
	{"stepped down to follower since quorum is not active", "联系不到多数成员（CheckQuorum），领导者退位"},
	{"received MsgAppResp(rejected, hint:", "追加被拒绝：按提示回退再试"},
	{"rejected MsgApp", "拒绝追加：前一个条目的任期不匹配"},
	{"commits up to index", "提交到此索引"},
	{"has received", "统计选票"},
	{"received MsgVoteResp", "收到投票回复"},
	{"received MsgPreVoteResp", "收到预投票回复"},
	{"sent MsgVote request", "发出投票请求"},
	{"sent MsgPreVote request", "发出预投票请求"},
	{"no leader at term", "本任期没有领导者，丢弃提案"},
	{"restored snapshot", "安装快照"},
}

// glossZh is the Chinese gloss of one of raft's lines, in a Chinese
// window; "" otherwise or when the line is not a common one.
func glossZh(l i18n.Lang, line string) string {
	if l != i18n.Zh {
		return ""
	}
	for _, g := range glosses {
		if strings.Contains(line, g.frag) {
			return g.zh
		}
	}
	return ""
}
