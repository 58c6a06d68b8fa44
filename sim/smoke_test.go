package sim

import (
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	w, err := New(SandboxConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Advance(3 * time.Second); err != nil {
		t.Fatal(err)
	}
	lead, ok := w.Leader()
	t.Logf("leader %q %v", lead, ok)
	for _, in := range w.Infos() {
		t.Logf("%+v", in)
	}
	op, err := w.Do(Command{Kind: CmdPut, Via: "apiserver-2", Key: "/k", Value: "v"})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := w.Do(Command{Kind: CmdGet, Via: "etcd-4", Key: "/k"})
	if err := w.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("op %+v", *op)
	t.Logf("get %+v", *g)
	t.Logf("events %d unrouted %d", len(w.History()), UnroutedEntropyReads())
	n := 0
	for _, e := range w.History() {
		if e.Kind != EvSend && e.Kind != EvDeliver || e.Msg.Type.String() != "MsgHeartbeat" && e.Msg.Type.String() != "MsgHeartbeatResp" {
			if n < 60 {
				t.Logf("%s %s %s %s %+v %s", e.At, e.Kind, w.fmtNode(e.Node), w.fmtNode(e.Peer), e.Msg, e.Text)
			}
			n++
		}
	}
}

func TestSmokeTranscript(t *testing.T) {
	w, _ := New(SandboxConfig())
	w.Advance(2 * time.Second)
	w.Do(Command{Kind: CmdPut, Via: "apiserver-2", Key: "/k", Value: "v"})
	w.Do(Command{Kind: CmdGet, Via: "etcd-4", Key: "/k", Serializable: true})
	w.Advance(time.Second)
	for _, e := range w.History() {
		if !e.IsHeartbeat() {
			t.Log(w.Describe(e))
		}
	}
	t.Log(string(w.AppendTraceLine(nil, w.History()[5])))
}
