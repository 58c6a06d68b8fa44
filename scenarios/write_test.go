package scenarios

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// TestMarshalRoundTrip writes every command kind and parses the result back:
// the configuration and the steps must say exactly what the commands did.
func TestMarshalRoundTrip(t *testing.T) {
	cfg := sim.SandboxConfig()
	cfg.Seed = 42
	cfg.Learners = nil
	cfg.DiskLatency = 2 * time.Millisecond
	// Each member's quota: etcd-1 its own, the others the one for all.
	cfg.QuotaBackendBytes, cfg.QuotaBackendBytesOf = 100000, map[string]int64{"etcd-1": 45000}
	lat := netmodel.Latency{Min: 30 * time.Millisecond, Max: 40 * time.Millisecond}
	loss := netmodel.Ratio{Num: 5, Den: 1000}
	cfg.Links = []sim.LinkOverride{{From: "etcd-1", To: "etcd-2", Latency: &lat, OneWay: true}}
	at := func(ms int) sim.Time { return sim.Time(time.Duration(ms) * time.Millisecond) }
	keysOnly := server.GetPrefix("", true)
	keysOnly.Range.KeysOnly = true
	cmds := []sim.Command{
		{At: at(1000), Kind: sim.CmdPut, Via: "apiserver-1", Req: server.Put("true", "null")},
		{At: at(1000), Kind: sim.CmdGet, Via: "etcd-2", Req: keysOnly},
		{At: at(1001), Kind: sim.CmdDelete, Via: "etcd-3", Req: server.DeletePrefix("/a"), Label: "d1"},
		{At: at(1002), Kind: sim.CmdWatch, Via: "etcd-3", Req: server.Watch("k: v"), RequireLeader: true},
		{At: at(1003), Kind: sim.CmdCrash, Node: "etcd-5"},
		{At: at(1004), Kind: sim.CmdRestart, Node: "etcd-5"},
		{At: at(1005), Kind: sim.CmdStall, Node: "etcd-4", For: 300 * time.Millisecond},
		{At: at(1006), Kind: sim.CmdClock, Node: "etcd-2", Rate: 1},
		{At: at(1007), Kind: sim.CmdPartition, Groups: [][]string{{"etcd-1"}, {"etcd-2", "etcd-3", "etcd-4", "etcd-5"}}},
		{At: at(1008), Kind: sim.CmdHeal},
		{At: at(1009), Kind: sim.CmdIsolate, Node: "etcd-1"},
		{At: at(1010), Kind: sim.CmdCut, From: "etcd-1", To: "etcd-2", OneWay: true},
		{At: at(1011), Kind: sim.CmdRestore, From: "etcd-1", To: "etcd-2"},
		{At: at(1012), Kind: sim.CmdLink, From: "etcd-3", To: "etcd-4", Latency: &lat, Loss: &loss},
		{At: at(1013), Kind: sim.CmdCampaign, Node: "etcd-2"},
		{At: at(1014), Kind: sim.CmdTransferLeader, Node: "etcd-3"},
		{At: at(1015), Kind: sim.CmdAddMember, Node: "etcd-6", Learner: true},
		{At: at(1016), Kind: sim.CmdPromote, Node: "etcd-6"},
		{At: at(1017), Kind: sim.CmdRemoveMember, Node: "etcd-6"},
		{At: at(1018), Kind: sim.CmdSnapshot, Node: "etcd-1"},
		{At: at(1019), Kind: sim.CmdCaption, Caption: "say", Text: "a: caption"},
		{At: at(1020), Kind: sim.CmdLoad, Load: &sim.LoadSpec{For: time.Minute, Rate: 250, Via: []string{"apiserver-1", "etcd-2"},
			Keys: 7, Prefix: "/l/", Zipf: true, Mix: sim.LoadMix{Put: 3, Serializable: 1, Txn: 2}}},
	}
	data, err := MarshalWith(MarshalOptions{End: at(2500)}, cfg, cmds)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("session.yaml", data)
	if err != nil {
		t.Fatalf("the written scenario does not parse: %v\n%s", err, data)
	}
	got := s.Config
	if got.Seed != 42 || got.Topology != "stacked" || got.Apiservers != cfg.Apiservers || got.DiskLatency != cfg.DiskLatency ||
		len(got.Links) != 1 || !got.Links[0].OneWay || *got.Links[0].Latency != lat || got.ClientLatency != cfg.ClientLatency ||
		got.Network.Latency != cfg.Network.Latency || !got.Network.Loss.IsZero() || got.MaxSizePerMsg != cfg.MaxSizePerMsg || !got.PreVote || !got.CheckQuorum {
		t.Errorf("config did not survive:\n got %+v\nwant %+v", got, cfg)
	}
	for _, m := range cfg.Members {
		want := map[bool]int64{true: 45000, false: 100000}[m == "etcd-1"]
		if q := got.QuotaBackendBytesOf[m]; q != want {
			t.Errorf("%s's quota: %d, want %d", m, q, want)
		}
	}
	if len(s.Steps) != len(cmds)+1 {
		t.Fatalf("got %d steps, want %d (+1 wait)", len(s.Steps), len(cmds))
	}
	for i, c := range cmds {
		st := s.Steps[i]
		if st.At == nil || sim.Time(*st.At) != c.At {
			t.Errorf("step %d (%s): at %v, want %s", i, st.Kind, st.At, c.At)
		}
		want := string(c.Kind)
		if c.Kind == sim.CmdCaption {
			want = c.Caption
		}
		if st.Kind.String() != want {
			t.Errorf("step %d: kind %s, want %s", i, st.Kind, want)
		}
	}
	put, get, watch, link := s.Steps[0], s.Steps[1], s.Steps[3], s.Steps[13]
	if string(put.Req.Put.Key) != "true" || string(put.Req.Put.Value) != "null" || put.Via.Name != "apiserver-1" {
		t.Errorf("put: %+v", put)
	}
	if g := get.Req.Range; !server.IsPrefix(g.Key, g.RangeEnd) || !g.KeysOnly || !g.Serializable || string(g.Key) != "\x00" {
		t.Errorf("get: %+v", get)
	}
	if string(watch.Req.Watch.Key) != "k: v" || !watch.RequireLeader {
		t.Errorf("watch: %+v", watch)
	}
	if *link.Latency != lat || *link.Loss != loss || !link.Both {
		t.Errorf("link: %+v", link)
	}
	if s.Steps[11].Both || !s.Steps[12].Both {
		t.Errorf("cut should be one-way and restore both ways")
	}
	if s.Steps[6].For != 300*time.Millisecond || s.Steps[7].Rate != 1 {
		t.Errorf("stall for %s, clock rate %v", s.Steps[6].For, s.Steps[7].Rate)
	}
	if l, c := s.Steps[len(cmds)-1], cmds[len(cmds)-1]; l.Load == nil || !reflect.DeepEqual(*l.Load, *c.Load) || !l.Background {
		t.Errorf("load: %+v, want %+v in the background", l.Load, c.Load)
	}
	if last := s.Steps[len(cmds)]; last.Kind != StepWait || last.Wait != 2500*time.Millisecond-1020*time.Millisecond {
		t.Errorf("final step: %s %s", last.Kind, last.Wait)
	}
}

func TestMarshalErrors(t *testing.T) {
	cfg := sim.SandboxConfig()
	for _, tc := range []struct {
		cmds []sim.Command
		want string
	}{
		{[]sim.Command{{At: 5, Kind: sim.CmdHeal}, {At: 4, Kind: sim.CmdHeal}}, "earlier than"},
		{[]sim.Command{{Kind: "explode"}}, "no scenario step"},
		{[]sim.Command{{Kind: sim.CmdPut, Via: "etcd-1"}}, "empty key"},
		{[]sim.Command{{Kind: sim.CmdCaption, Caption: "shout", Text: "x"}}, "caption kind"},
	} {
		_, err := Marshal(cfg, tc.cmds)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want an error with %q", tc.cmds, err, tc.want)
		}
	}
	bad := cfg
	bad.Members = []string{"Etcd_1"}
	if _, err := Marshal(bad, nil); err == nil {
		t.Errorf("a member name the format cannot hold was written")
	}
}

// TestTopologyDocExamples parses the yaml examples of docs/topologies.md.
func TestTopologyDocExamples(t *testing.T) {
	data, err := os.ReadFile("../docs/topologies.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(data), "```yaml\n")[1:]
	if len(blocks) == 0 {
		t.Fatal("no yaml examples in docs/topologies.md")
	}
	for i, b := range blocks {
		yaml, _, _ := strings.Cut(b, "```")
		if _, err := Parse(fmt.Sprintf("topologies.md#%d", i+1), []byte(yaml)); err != nil {
			t.Errorf("docs/topologies.md example %d does not parse: %v", i+1, err)
		}
	}
}
