package server

import (
	"slices"
	"testing"
)

// A revocation answers the keep-alives held for its lease, in the order
// they came, and only those; the others stay held.
func TestHeldKeepAlives(t *testing.T) {
	var h HeldKeepAlives[string]
	h.Hold(7, "first of 7")
	h.Hold(8, "of 8")
	h.Hold(7, "second of 7")
	var answered []string
	h.Revoked(7, func(s string) { answered = append(answered, s) })
	if !slices.Equal(answered, []string{"first of 7", "second of 7"}) || h.Len() != 1 {
		t.Fatalf("revoking 7 answered %q, %d still held; want both of 7's and 1 held", answered, h.Len())
	}
	h.Revoked(7, func(s string) { t.Fatalf("answered %q twice", s) })
	var all []string
	h.All(func(s string) { all = append(all, s) })
	if !slices.Equal(all, []string{"of 8"}) {
		t.Fatalf("held %q, want [of 8]", all)
	}
}
