package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"testing"
)

// FuzzRead reads arbitrary traces: a damaged or hostile trace gets an
// error, never a panic, and what the reader accepts it can read again from
// what it returned.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"schema":1,"seed":3,"members":["n1","n2"]}` + "\n" +
		`{"t":100,"ev":"send","node":"n1","peer":"n2","msg":{"id":1,"type":"MsgApp","term":2,"index":4,"arrive":900}}` + "\n" +
		`{"t":900,"ev":"deliver","node":"n2","peer":"n1","msg":{"id":1,"type":"MsgApp","term":2,"index":4}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var events []Event
		last := int64(-1 << 63)
		for {
			e, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatal("an error without words")
				}
				return
			}
			if e.T < last {
				t.Fatalf("time went backwards: %d after %d", e.T, last)
			}
			last = e.T
			events = append(events, e)
		}
		// What it accepted, written again, reads back the same.
		var again bytes.Buffer
		enc := json.NewEncoder(&again)
		if err := enc.Encode(tr.Header()); err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if err := enc.Encode(e); err != nil {
				t.Fatal(err)
			}
		}
		h, got, err := ReadAll(&again)
		if err != nil {
			t.Fatalf("what it read, written again, does not read: %v", err)
		}
		if !reflect.DeepEqual(h, tr.Header()) || !reflect.DeepEqual(got, events) {
			t.Fatalf("read back differently:\n%+v %+v\n%+v %+v", tr.Header(), events, h, got)
		}
	})
}
