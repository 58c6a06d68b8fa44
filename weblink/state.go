package weblink

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/raftsim/raftsim/sim"
)

// State is what the page reports of the world on screen, for a test to
// compare with a headless run of the same scenario: the time, the leader
// and its term, every member's role, term, commit index and log, and a
// hash of the whole trace.
type State struct {
	Now     string        `json:"now"`
	Leader  string        `json:"leader"` // "" when there is none
	Term    uint64        `json:"term"`   // the leader's term; 0 without a leader
	Members []MemberState `json:"members"`
	// TraceSHA256 is the SHA-256 of the trace (what `raftsim run --trace`
	// writes), in hex.
	TraceSHA256 string `json:"trace_sha256"`
}

// MemberState is one member in a State.
type MemberState struct {
	Name   string   `json:"name"`
	Role   string   `json:"role"`
	Term   uint64   `json:"term"`
	Commit uint64   `json:"commit"`
	Log    []string `json:"log"` // "index/term summary", first to last
}

// StateOf reads a world's State. scenario is the name its trace header
// carries (the scenario's name, as `raftsim run` writes it).
func StateOf(w *sim.World, scenario string) (State, error) {
	v := w.View()
	st := State{Now: v.Now.String(), Leader: v.Leader}
	for _, m := range v.Members {
		ms := MemberState{Name: m.Name, Role: m.Role.String(), Term: m.Term, Commit: m.Commit, Log: []string{}}
		for _, e := range m.Log {
			ms.Log = append(ms.Log, fmt.Sprintf("%d/%d %s", e.Index, e.Term, e.Summary))
		}
		if m.Name == v.Leader {
			st.Term = m.Term
		}
		st.Members = append(st.Members, ms)
	}
	h := sha256.New()
	if err := w.WriteTrace(h, scenario); err != nil {
		return st, err
	}
	st.TraceSHA256 = hex.EncodeToString(h.Sum(nil))
	return st, nil
}
