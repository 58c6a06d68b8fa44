package membership

import (
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/membershippb"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/server"
)

// three is a cluster of three started voters and n4, a learner added at
// runtime that has not published itself.
func three() *Cluster {
	return &Cluster{Members: []Member{
		{ID: 1, Name: "n1", Published: true}, {ID: 2, Name: "n2", Published: true},
		{ID: 3, Name: "n3", Published: true}, {ID: 4, Learner: true, PeerURL: "http://n4:2380"},
	}}
}

func peerURL(m Member) string {
	if m.PeerURL != "" {
		return m.PeerURL
	}
	return "http://" + m.Name + ":2380"
}

// ValidateConfigurationChange's answers, and what applying a change does.
func TestValidateAndApply(t *testing.T) {
	c := three()
	for _, x := range []struct {
		typ  pb.ConfChangeType
		id   uint64
		ctx  ConfContext
		want string
	}{
		{pb.ConfChangeAddNode, 5, ConfContext{PeerURLs: []string{"http://n2:2380"}}, ErrPeerURLExists},
		{pb.ConfChangeAddNode, 3, ConfContext{PeerURLs: []string{"http://x:2380"}}, ErrIDExists},
		{pb.ConfChangeAddLearnerNode, 5, ConfContext{PeerURLs: []string{"http://n5:2380"}}, ErrTooManyLearners},
		{pb.ConfChangeAddNode, 5, ConfContext{PeerURLs: []string{"http://n5:2380"}}, ""},
		{pb.ConfChangeAddNode, 2, ConfContext{IsPromote: true}, ErrNotLearner},
		{pb.ConfChangeAddNode, 9, ConfContext{IsPromote: true}, ErrMemberNotFound},
		{pb.ConfChangeAddNode, 4, ConfContext{IsPromote: true}, ""},
		{pb.ConfChangeRemoveNode, 9, ConfContext{}, ErrMemberNotFound},
		{pb.ConfChangeUpdateNode, 2, ConfContext{PeerURLs: []string{"http://n3:2380"}}, ErrPeerURLExists},
		{pb.ConfChangeUpdateNode, 2, ConfContext{PeerURLs: []string{"http://n2:2380"}}, ""},
	} {
		if got := c.Validate(x.typ, x.id, x.ctx, peerURL); got != x.want {
			t.Errorf("Validate(%v, %d, %+v) = %q, want %q", x.typ, x.id, x.ctx, got, x.want)
		}
	}
	c.ApplyConfChange(pb.ConfChangeAddNode, 4, ConfContext{IsPromote: true})
	c.ApplyConfChange(pb.ConfChangeAddNode, 0, ConfContext{PeerURLs: []string{"http://n0:2380"}, Name: "n0"})
	c.ApplyConfChange(pb.ConfChangeRemoveNode, 2, ConfContext{})
	c.ApplyConfChange(pb.ConfChangeUpdateNode, 3, ConfContext{PeerURLs: []string{"http://n3:2390"}})
	c.Publish(4, &membershippb.Attributes{Name: "n4"})
	var ids []uint64
	for _, m := range c.Members {
		ids = append(ids, m.ID)
	}
	if len(ids) != 4 || ids[0] != 0 || ids[1] != 1 || ids[2] != 3 || ids[3] != 4 {
		t.Fatalf("members %v, want [0 1 3 4] (sorted, n2 removed)", ids)
	}
	if n4 := c.Find(4); n4.Learner || n4.Name != "n4" || !n4.Published {
		t.Errorf("n4 after its promotion and publication: %+v", *n4)
	}
	if c.Find(3).PeerURL != "http://n3:2390" || c.Find(0).Name != "n0" || c.Find(0).Published {
		t.Errorf("after the update and the add: %+v", c.Members)
	}
}

// The strict reconfiguration checks.
func TestMayAddRemovePromote(t *testing.T) {
	c := three()
	all := func(uint64) bool { return true }
	only := func(ids ...uint64) func(uint64) bool {
		return func(id uint64) bool {
			for _, x := range ids {
				if x == id {
					return true
				}
			}
			return false
		}
	}
	// Adding a voter to 3 voters makes 4: a quorum of 3 must be connected.
	if got := c.MayAdd(false, only(1, 2)); got != ErrUnhealthy {
		t.Errorf("MayAdd with 2 of 3 connected = %q, want %q", got, ErrUnhealthy)
	}
	if got := c.MayAdd(false, all); got != "" {
		t.Errorf("MayAdd = %q", got)
	}
	c.Members[1].Name, c.Members[2].Name = "", "" // n2 and n3 not started
	if got := c.MayAdd(false, all); got != ErrNotEnoughStarted {
		t.Errorf("MayAdd with 1 of 3 started = %q, want %q", got, ErrNotEnoughStarted)
	}
	if got := c.MayAdd(true, all); got != "" {
		t.Errorf("MayAdd of a learner with 1 of 3 started = %q, want none", got)
	}
	if got := c.MayRemove(2, false, all); got != ErrNotEnoughStarted {
		t.Errorf("MayRemove(n2) with 1 of the 2 left started = %q, want %q", got, ErrNotEnoughStarted)
	}
	c = three()
	if got := c.MayRemove(4, false, only()); got != "" {
		t.Errorf("MayRemove(a learner) = %q, want none", got)
	}
	if got := c.MayRemove(3, false, only(1, 3)); got != ErrUnhealthy {
		t.Errorf("MayRemove(n3) connected to n3 only = %q, want %q", got, ErrUnhealthy)
	}
	if got := c.MayRemove(3, true, only(1)); got != "" {
		t.Errorf("MayRemove(n3), gone = %q, want none", got)
	}
	for _, x := range []struct {
		found          bool
		learner, leadr uint64
		want           string
	}{{false, 0, 10, ErrMemberNotFound}, {true, 8, 10, ErrLearnerNotReady}, {true, 9, 10, ""}, {true, 0, 0, ErrLearnerNotReady}} {
		if got := c.MayPromote(x.found, x.learner, x.leadr); got != x.want {
			t.Errorf("MayPromote(%v, %d, %d) = %q, want %q", x.found, x.learner, x.leadr, got, x.want)
		}
	}
}

// The leader's cluster version rule.
func TestWantVersion(t *testing.T) {
	for _, x := range []struct {
		cur  string
		all  bool
		want string
	}{{"", true, Version}, {"", false, MinVersion}, {MinVersion, true, Version}, {MinVersion, false, ""}, {Version, true, ""}} {
		c := Cluster{Version: x.cur}
		if got := c.WantVersion(x.all); got != x.want {
			t.Errorf("WantVersion(%q, %v) = %q, want %q", x.cur, x.all, got, x.want)
		}
	}
}

// The cluster in a snapshot: the same JSON as before the move (a
// snapshot's bytes reach the traces through its size), and back.
func TestClusterEncoding(t *testing.T) {
	c := three()
	c.Version = "3.6.0"
	c.Alarms = server.Alarms{{Member: 7, Kind: etcdserverpb.AlarmType_NOSPACE}}
	const want = `{"version":"3.6.0","members":[{"id":1,"name":"n1","published":true},{"id":2,"name":"n2","published":true},` +
		`{"id":3,"name":"n3","published":true},{"id":4,"peerURL":"http://n4:2380","isLearner":true}],"alarms":[{"member":7,"alarm":1}]}`
	if got := string(c.Encode()); got != want {
		t.Errorf("Encode = %s\nwant     %s", got, want)
	}
	var d Cluster
	if err := d.Decode(c.Encode()); err != nil || string(d.Encode()) != want {
		t.Errorf("Decode: %v, %s", err, d.Encode())
	}
	if err := d.Decode([]byte("{")); err != server.ErrCorrupt {
		t.Errorf("Decode of a torn cluster = %v, want server.ErrCorrupt", err)
	}
	ctx := ConfContext{ID: 5, PeerURLs: []string{"http://n5:2380"}, IsLearner: true}
	if got := string(ctx.Encode()); got != `{"id":5,"peerURLs":["http://n5:2380"],"isLearner":true}` {
		t.Errorf("ConfContext.Encode = %s", got)
	}
	if got := DecodeConfContext(ctx.Encode()); got.ID != 5 || !got.IsLearner || got.PeerURLs[0] != "http://n5:2380" {
		t.Errorf("DecodeConfContext = %+v", got)
	}
	if got := DecodeConfContext([]byte("n1")); got.Name != "n1" {
		t.Errorf("DecodeConfContext of a plain name = %+v", got)
	}
}
