package membership

import (
	"reflect"
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
)

// TestCloneIsDecodeOfEncode: a fork copies a member's cluster state with
// Clone instead of encoding and decoding it, so the two must agree, empty
// lists included.
func TestCloneIsDecodeOfEncode(t *testing.T) {
	for _, c := range []Cluster{
		{},
		{Version: "3.6.0"},
		{Version: "3.6.0", Members: []Member{{ID: 1, Name: "a", Published: true}, {ID: 2, PeerURL: "http://b:2380", Learner: true}},
			Alarms: server.Alarms{{Member: 7, Kind: etcdserverpb.AlarmType_NOSPACE}}},
		{Members: make([]Member, 0, 4), Alarms: server.Alarms{}},
	} {
		var want Cluster
		if err := want.Decode(c.Encode()); err != nil {
			t.Fatal(err)
		}
		got := c.Clone()
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Clone of %+v = %+v; decoding its encoding gives %+v", c, got, want)
		}
		if len(c.Members) > 0 {
			got.Members[0].Name = "changed"
			if c.Members[0].Name == "changed" {
				t.Errorf("Clone shares its members with the original")
			}
		}
	}
}
