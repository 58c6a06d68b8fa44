package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
)

// IsHeartbeat reports whether the event is a heartbeat or its reply being
// sent or delivered: the steady background that transcripts hide by default.
func (e Event) IsHeartbeat() bool {
	if e.Kind != EvSend && e.Kind != EvDeliver {
		return false
	}
	return IsHeartbeatType(e.Msg.Type)
}

// IsHeartbeatType reports whether a message type is a heartbeat or its
// reply, whatever befell the message (sent, delivered or dropped).
func IsHeartbeatType(t pb.MessageType) bool {
	return t == pb.MsgHeartbeat || t == pb.MsgHeartbeatResp
}

// DescribeMessage says what a message is for, in words, with its fields.
func DescribeMessage(s MsgSummary) string { return DescribeMessageIn(i18n.En, s) }

// DescribeMessageIn is DescribeMessage in a language. The message type's
// name (MsgApp) is raft's and stays as it is.
func DescribeMessageIn(l i18n.Lang, s MsgSummary) string {
	t := l.F("%s term %d: ", s.Type.String(), s.Term)
	if s.Term == 0 {
		t = s.Type.String() + ": " // local and forwarded messages carry no term
	}
	switch s.Type {
	case pb.MsgApp:
		if s.Entries == 0 {
			return t + l.F("no new entries after %d/%d, commit %d", s.LogTerm, s.Index, s.Commit)
		}
		return t + l.F("append %s after %d/%d, commit %d", l.Count(s.Entries, "%d entry", "%d entries"), s.LogTerm, s.Index, s.Commit)
	case pb.MsgAppResp:
		if s.Reject {
			return t + l.F("append rejected at %d (hint: try %d/%d)", s.Index, s.LogTerm, s.RejectHint)
		}
		return t + l.F("append ok, log matches up to %d", s.Index)
	case pb.MsgVote:
		return t + l.F("vote request (my log ends at %d/%d)", s.LogTerm, s.Index)
	case pb.MsgPreVote:
		return t + l.F("pre-vote request (my log ends at %d/%d)", s.LogTerm, s.Index)
	case pb.MsgVoteResp:
		if s.Reject {
			return t + l.T("vote rejected")
		}
		return t + l.T("vote granted")
	case pb.MsgPreVoteResp:
		if s.Reject {
			return t + l.T("pre-vote rejected")
		}
		return t + l.T("pre-vote granted")
	case pb.MsgHeartbeat:
		return t + l.F("heartbeat, commit %d", s.Commit)
	case pb.MsgHeartbeatResp:
		return t + l.T("heartbeat reply")
	case pb.MsgProp:
		return t + l.F("forwarded proposal, %s", l.Count(s.Entries, "%d entry", "%d entries"))
	case pb.MsgReadIndex:
		return t + l.T("read-index request (forwarded linearizable read)")
	case pb.MsgReadIndexResp:
		return t + l.F("read-index reply: read at index %d", s.Index)
	case pb.MsgSnap:
		return t + l.F("snapshot up to %d/%d", s.LogTerm, s.Index)
	case pb.MsgTimeoutNow:
		return t + l.T("timeout-now: campaign at once (leadership transfer)")
	case pb.MsgTransferLeader:
		return t + l.T("transfer-leader request")
	}
	return strings.TrimSuffix(t, ": ")
}

// roleWords are raft's states as the transcript names them.
var roleWords = map[raft.StateType]string{
	raft.StateFollower: i18n.N("follower"), raft.StatePreCandidate: i18n.N("pre-candidate"),
	raft.StateCandidate: i18n.N("candidate"), raft.StateLeader: i18n.N("leader"),
}

// Describe formats one event as a transcript line: virtual time first,
// then member names and what happened, for people.
func (w *World) Describe(e Event) string { return w.DescribeIn(i18n.En, e) }

// DescribeIn is Describe in a language. Names, keys, values and etcd's
// own error messages stay as they are; the words around them follow l.
func (w *World) DescribeIn(l i18n.Lang, e Event) string {
	node, peer := w.fmtNode(e.Node), w.fmtNode(e.Peer)
	var what string
	switch e.Kind {
	case EvSend:
		what = fmt.Sprintf("%s → %s  %s", node, peer, DescribeMessageIn(l, e.Msg))
	case EvDeliver:
		what = fmt.Sprintf("%s ← %s  %s", node, peer, DescribeMessageIn(l, e.Msg))
	case EvDrop:
		what = fmt.Sprintf("%s → %s  %s  ", node, peer, DescribeMessageIn(l, e.Msg)) + l.F("DROPPED: %s", l.T(dropWord(e.Reason.String())))
	case EvRole:
		what = l.F("%s is %s in term %d", node, l.T(roleWords[e.Role]), e.Term)
		if e.Role != raft.StateLeader {
			if e.Lead != 0 {
				what += l.F(", leader %s", w.fmtNode(e.Lead))
			} else {
				what += l.T(", no leader known")
			}
		}
		if e.Peer != 0 {
			what += l.F(", voted for %s", peer)
		}
	case EvPersist:
		what = l.F("%s persisted %s; log ends at %d/%d", node, l.Count(e.N, "%d entry", "%d entries"), e.Term, e.Index)
	case EvCommit:
		what = l.F("%s commit index → %d", node, e.Index)
	case EvApply:
		what = l.F("%s applied up to %d", node, e.Index)
	case EvSnapshot:
		what = l.F("%s snapshot (%s) at %d/%d", node, l.T(snapshotWord(e.Text)), e.Term, e.Index)
	case EvConf:
		what = l.F("%s applied conf change at %d: %s", node, e.Index, confText(l, e.Text))
	case EvRequest, EvReply, EvWatch:
		op := w.opByID(e.Op)
		arrow := "→"
		if e.Kind != EvRequest {
			arrow = "←"
		}
		who := op.Client
		if _, isMember := w.byName[op.Client]; isMember {
			who += l.T(" (local client)")
		}
		what = fmt.Sprintf("%s %s %s  %s  [%s]", who, arrow, node, opText(l, op, e), opNameIn(l, op))
		if e.Kind == EvReply {
			// NB: from the event alone, never from the op's state now, so
			// that a line reads the same live and after the run.
			what += l.F(" after %s", time.Duration(e.At-op.Start))
		}
	case EvFault:
		if e.Node == 0 {
			what = faultText(l, e.Text)
		} else {
			what = node + " " + faultText(l, e.Text)
		}
	case EvCaption:
		what = "── " + e.Text
	case EvViolation:
		what = l.T("SAFETY VIOLATION: ") + violationText(l, e.Text)
	}
	return e.At.Micros() + "  " + what
}

// opNameIn names a request in a transcript: its label, or its number.
func opNameIn(l i18n.Lang, op *Op) string {
	if op.Label != "" {
		return op.Label
	}
	return l.F("op %d", op.ID)
}

// TraceHeader is the first line of a JSON Lines trace.
type TraceHeader struct {
	Schema   int      `json:"schema"`
	Seed     uint64   `json:"seed"`
	Scenario string   `json:"scenario,omitempty"`
	Members  []string `json:"members"`
	Clients  []string `json:"clients,omitempty"`
}

// WriteTraceHeader writes the trace's header line.
func (w *World) WriteTraceHeader(out io.Writer, scenario string) error {
	h := TraceHeader{Schema: 1, Seed: w.cfg.Seed, Scenario: scenario, Members: w.MemberNames()}
	for _, c := range w.clients {
		h.Clients = append(h.Clients, c.cfg.Name)
	}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err
}

// AppendTraceLine appends the event as one JSON object and a newline. Field
// order is fixed, so the same run gives the same bytes.
func (w *World) AppendTraceLine(b []byte, e Event) []byte {
	b = append(b, `{"t":`...)
	b = strconv.AppendInt(b, int64(e.At), 10)
	b = append(b, `,"ev":"`...)
	b = append(b, e.Kind.String()...)
	b = append(b, '"')
	if e.Node != 0 {
		b = appendJSONField(b, "node", w.fmtNode(e.Node))
	}
	switch e.Kind {
	case EvSend, EvDeliver, EvDrop:
		b = appendJSONField(b, "peer", w.fmtNode(e.Peer))
		b = append(b, `,"msg":{"id":`...)
		b = strconv.AppendUint(b, e.Msg.ID, 10)
		b = appendJSONField(b, "type", e.Msg.Type.String())
		b = appendUintField(b, "term", e.Msg.Term)
		b = appendUintField(b, "logterm", e.Msg.LogTerm)
		b = appendUintField(b, "index", e.Msg.Index)
		b = appendUintField(b, "commit", e.Msg.Commit)
		b = appendUintField(b, "entries", uint64(e.Msg.Entries))
		if e.Msg.Reject {
			b = append(b, `,"reject":true`...)
			if e.Msg.Type == pb.MsgAppResp {
				b = appendUintField(b, "reject_hint", e.Msg.RejectHint)
			}
		}
		if e.Msg.Forwarded {
			b = append(b, `,"forwarded":true`...)
		}
		if e.Kind == EvSend {
			b = appendUintField(b, "arrive", uint64(e.Msg.ArriveAt))
		}
		b = append(b, '}')
		if e.Kind == EvDrop {
			b = appendJSONField(b, "reason", e.Reason.String())
		}
	case EvRole:
		b = appendJSONField(b, "role", roleWords[e.Role])
		b = appendUintField(b, "term", e.Term)
		b = appendJSONField(b, "lead", w.fmtNode(e.Lead))
		b = appendJSONField(b, "vote", w.fmtNode(e.Peer))
	default:
		if e.Term != 0 {
			b = appendUintField(b, "term", e.Term)
		}
		if e.Index != 0 {
			b = appendUintField(b, "index", e.Index)
		}
		if e.N != 0 {
			b = appendUintField(b, "n", uint64(e.N))
		}
		if e.Op != 0 {
			b = appendUintField(b, "op", e.Op)
		}
	}
	if e.Text != "" {
		b = appendJSONField(b, "text", e.Text)
	}
	if e.Why != "" {
		b = appendJSONField(b, "why", e.Why)
	}
	return append(b, "}\n"...)
}

func appendJSONField(b []byte, key, value string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	v, _ := json.Marshal(value)
	return append(b, v...)
}

func appendUintField(b []byte, key string, v uint64) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendUint(b, v, 10)
}

// WriteTrace writes the whole history as a JSON Lines trace: the header
// line, then one event per line in order. The same run gives the same bytes.
func (w *World) WriteTrace(out io.Writer, scenario string) error {
	bw := bufio.NewWriter(out)
	if err := w.WriteTraceHeader(bw, scenario); err != nil {
		return err
	}
	var line []byte
	for i := 0; i < w.history.len(); i++ {
		line = w.AppendTraceLine(line[:0], w.event(i))
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
