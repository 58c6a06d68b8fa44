package wire

import (
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/sim"
)

// TestRequestToADownMemberGetsGRPCsText: a request that reached a member's
// endpoint just before the member went down is answered as gRPC answers a
// client whose server's connection closed under its call, Unavailable
// "error reading from server: EOF" (render/ui/testdata/errortexts.txt),
// not with a text of raftsim's own dressed as the server's. (Seen to fail
// with "raftsim: m1 is down".)
func TestRequestToADownMemberGetsGRPCsText(t *testing.T) {
	cfg := sim.DefaultConfig()
	cfg.Members = []string{"m1", "m2", "m3"}
	w, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := StartCluster(w, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Do(sim.Command{Kind: sim.CmdCrash, Node: "m1"}); err != nil {
		t.Fatal(err)
	}
	var got error
	answered := false
	r := &request{member: "m1", peer: "127.0.0.1:40000", msg: &pb.PutRequest{Key: []byte("k"), Value: []byte("v")},
		answer: func(_ any, err error) { got, answered = err, true }}
	if err := NewFront(1).Take(w, r); err != nil {
		t.Fatal(err)
	}
	if !answered || status.Code(got) != codes.Unavailable || status.Convert(got).Message() != "error reading from server: EOF" {
		t.Errorf("a put at a member that is down: %v (answered %v), want Unavailable: error reading from server: EOF", got, answered)
	}
}
