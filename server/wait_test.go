package server

import "testing"

// What waits for an entry is given back once, when the entry is applied;
// an entry nothing waits for (another member's request) gives nothing.
func TestWait(t *testing.T) {
	var w Wait[string]
	if _, ok := w.Trigger(1); ok {
		t.Fatal("an empty table gave something back")
	}
	w.Register(1, "put a")
	w.Register(2, "put b")
	if got, ok := w.Trigger(2); !ok || got != "put b" {
		t.Fatalf("Trigger(2) = %q, %v", got, ok)
	}
	if _, ok := w.Trigger(2); ok || w.Len() != 1 {
		t.Fatalf("entry 2 was answered twice, or %d wait (want 1)", w.Len())
	}
	if _, ok := w.Trigger(3); ok {
		t.Fatal("an entry nothing waits for gave something back")
	}
}
