package scenarios

import (
	"testing"
	"time"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestMarshalKeepsIgnoresAndRevisionFilters: a put's ignore_value and
// ignore_lease, and a get's mod and create revision bounds, survive a
// session's write and read. Before, a served `put K --ignore-value` was
// saved as a put of "" and a `get --min-mod-rev` as a plain get: the
// replay wrote the empty value, and a txn comparing the value went the
// other way (found by TestEveryVerbRoundTrip).
func TestMarshalKeepsIgnoresAndRevisionFilters(t *testing.T) {
	cfg := sim.SandboxConfig()
	put := server.Put("k", "")
	put.Put.IgnoreValue, put.Put.IgnoreLease = true, true
	get := server.GetPrefix("k", false)
	get.Range.MinModRevision, get.Range.MaxModRevision, get.Range.MinCreateRevision, get.Range.MaxCreateRevision = 2, 30, 4, 50
	at := sim.Time(time.Second)
	data, err := MarshalWith(MarshalOptions{End: at}, cfg, []sim.Command{
		{At: at, Kind: sim.CmdPut, Via: "etcd-1", Req: put},
		{At: at, Kind: sim.CmdGet, Via: "etcd-1", Req: get},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("session.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if p := s.Steps[0].Req.Put; !p.IgnoreValue || !p.IgnoreLease {
		t.Errorf("the put: %+v, want ignore_value and ignore_lease\n%s", p, data)
	}
	g := s.Steps[1].Req.Range
	if g.MinModRevision != 2 || g.MaxModRevision != 30 || g.MinCreateRevision != 4 || g.MaxCreateRevision != 50 {
		t.Errorf("the get: %+v, want its revision bounds 2, 30, 4, 50\n%s", g, data)
	}
}
