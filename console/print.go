package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/mvcc"
	"github.com/raftsim/raftsim/sim"
)

// The key-value and lease verbs print etcdctl v3.6's output, byte for byte:
// the simple printer (printer_simple.go), the JSON printer (encoding/json
// of etcd's gogo-generated response types, whose fields are omitempty) and
// the fields printer (printer_fields.go). The table printer supports none
// of them.

const tableUnsupported = "Error: table not supported as output format\n"

// jsonHeader is etcdserverpb.ResponseHeader as encoding/json writes it.
type jsonHeader struct {
	ClusterID uint64 `json:"cluster_id,omitempty"`
	MemberID  uint64 `json:"member_id,omitempty"`
	Revision  int64  `json:"revision,omitempty"`
	RaftTerm  uint64 `json:"raft_term,omitempty"`
}

func header(h mvcc.ResponseHeader) *jsonHeader {
	return &jsonHeader{ClusterID: h.ClusterId, MemberID: h.MemberId, Revision: h.Revision, RaftTerm: h.RaftTerm}
}

// jsonKV is mvccpb.KeyValue as encoding/json writes it: bytes in base64.
type jsonKV struct {
	Key            []byte `json:"key,omitempty"`
	CreateRevision int64  `json:"create_revision,omitempty"`
	ModRevision    int64  `json:"mod_revision,omitempty"`
	Version        int64  `json:"version,omitempty"`
	Value          []byte `json:"value,omitempty"`
	Lease          int64  `json:"lease,omitempty"`
}

func kvJSON(kv *sim.KeyValue) *jsonKV {
	if kv == nil {
		return nil
	}
	return &jsonKV{Key: []byte(kv.Key), CreateRevision: kv.CreateRevision, ModRevision: kv.ModRevision,
		Version: kv.Version, Value: []byte(kv.Value), Lease: kv.Lease}
}

func kvsJSON(kvs []sim.KeyValue) []*jsonKV {
	var out []*jsonKV
	for i := range kvs {
		out = append(out, kvJSON(&kvs[i]))
	}
	return out
}

func kvPtrsJSON(kvs []*mvcc.KeyValue) []*jsonKV {
	var out []*jsonKV
	for _, kv := range kvs {
		out = append(out, kvJSON(kv))
	}
	return out
}

type jsonRange struct {
	Header *jsonHeader `json:"header,omitempty"`
	Kvs    []*jsonKV   `json:"kvs,omitempty"`
	More   bool        `json:"more,omitempty"`
	Count  int64       `json:"count,omitempty"`
}

type jsonPut struct {
	Header *jsonHeader `json:"header,omitempty"`
	PrevKv *jsonKV     `json:"prev_kv,omitempty"`
}

type jsonDelete struct {
	Header  *jsonHeader `json:"header,omitempty"`
	Deleted int64       `json:"deleted,omitempty"`
	PrevKvs []*jsonKV   `json:"prev_kvs,omitempty"`
}

type jsonTxn struct {
	Header    *jsonHeader    `json:"header,omitempty"`
	Succeeded bool           `json:"succeeded,omitempty"`
	Responses []jsonResponse `json:"responses,omitempty"`
}

// jsonResponse is ResponseOp: its oneof field is an interface named
// Response, holding a wrapper with the one response.
type jsonResponse struct {
	Response any
}

func jsonMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "Error: " + err.Error() + "\n"
	}
	return string(b) + "\n"
}

// fieldsPrinter writes etcdctl's -w fields.
type fieldsPrinter struct{ b strings.Builder }

func (p *fieldsPrinter) hdr(h mvcc.ResponseHeader) {
	fmt.Fprintf(&p.b, "\"ClusterID\" : %d\n\"MemberID\" : %d\n", h.ClusterId, h.MemberId)
	if h.Revision > 0 {
		fmt.Fprintf(&p.b, "\"Revision\" : %d\n", h.Revision)
	}
	fmt.Fprintf(&p.b, "\"RaftTerm\" : %d\n", h.RaftTerm)
}

func (p *fieldsPrinter) kv(pfx string, kv *sim.KeyValue) {
	fmt.Fprintf(&p.b, "\"%sKey\" : %q\n\"%sCreateRevision\" : %d\n\"%sModRevision\" : %d\n\"%sVersion\" : %d\n\"%sValue\" : %q\n\"%sLease\" : %d\n",
		pfx, kv.Key, pfx, kv.CreateRevision, pfx, kv.ModRevision, pfx, kv.Version, pfx, kv.Value, pfx, kv.Lease)
}

func (p *fieldsPrinter) line(name string, v any) { fmt.Fprintf(&p.b, "\"%s\" : %v\n", name, v) }

func (p *fieldsPrinter) get(h mvcc.ResponseHeader, kvs []*mvcc.KeyValue, more bool, count int64) {
	p.hdr(h)
	for _, kv := range kvs {
		p.kv("", kv)
	}
	p.line("More", more)
	p.line("Count", count)
}

func (p *fieldsPrinter) put(h mvcc.ResponseHeader, prev *mvcc.KeyValue) {
	p.hdr(h)
	if prev != nil {
		p.kv("Prev", prev)
	}
}

func (p *fieldsPrinter) del(h mvcc.ResponseHeader, deleted int64, prev []*mvcc.KeyValue) {
	p.hdr(h)
	p.line("Deleted", deleted)
	for _, kv := range prev {
		p.kv("Prev", kv)
	}
}

// printKV is etcdctl's simple printKV: the key, then the value.
func printKV(b *strings.Builder, valueOnly bool, kv *sim.KeyValue) {
	if !valueOnly {
		b.WriteString(kv.Key + "\n")
	}
	b.WriteString(kv.Value + "\n")
}

func ptrs(kvs []sim.KeyValue) []*mvcc.KeyValue {
	out := make([]*mvcc.KeyValue, len(kvs))
	for i := range kvs {
		out[i] = &kvs[i]
	}
	return out
}

// formatGet prints a get's answer.
func formatGet(op *sim.Op, format string, valueOnly bool) string {
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(jsonRange{Header: header(op.Header), Kvs: kvsJSON(op.KVs), More: op.More, Count: op.Count})
	case "fields":
		var p fieldsPrinter
		p.get(op.Header, ptrs(op.KVs), op.More, op.Count)
		return p.b.String()
	}
	var b strings.Builder
	for i := range op.KVs {
		printKV(&b, valueOnly, &op.KVs[i])
	}
	if op.Stale {
		b.WriteString("# stale read: " + op.StaleNote + "\n")
	}
	return b.String()
}

// formatPut prints a put's answer.
func formatPut(op *sim.Op, format string) string {
	var prev *sim.KeyValue
	if len(op.PrevKVs) > 0 {
		prev = &op.PrevKVs[0]
	}
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(jsonPut{Header: header(op.Header), PrevKv: kvJSON(prev)})
	case "fields":
		var p fieldsPrinter
		p.put(op.Header, prev)
		return p.b.String()
	}
	var b strings.Builder
	b.WriteString("OK\n")
	if prev != nil {
		printKV(&b, false, prev)
	}
	return b.String()
}

// formatDel prints a delete's answer.
func formatDel(op *sim.Op, format string) string {
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(jsonDelete{Header: header(op.Header), Deleted: int64(op.Deleted), PrevKvs: kvsJSON(op.PrevKVs)})
	case "fields":
		var p fieldsPrinter
		p.del(op.Header, int64(op.Deleted), ptrs(op.PrevKVs))
		return p.b.String()
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(op.Deleted) + "\n")
	for i := range op.PrevKVs {
		printKV(&b, false, &op.PrevKVs[i])
	}
	return b.String()
}

// formatTxn prints a transaction's answer. The header is the whole
// transaction's; each response inside carries only its revision, as
// etcd's apply layer fills it in.
func formatTxn(op *sim.Op, format string) string {
	t := op.TxnResp
	if t == nil {
		t = &mvcc.TxnResponse{}
	}
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(txnJSON(op.Header, t))
	case "fields":
		var p fieldsPrinter
		p.hdr(op.Header)
		p.line("Succeeded", t.Succeeded)
		for _, r := range t.Responses {
			switch {
			case r.ResponseDeleteRange != nil:
				p.del(r.ResponseDeleteRange.Header, r.ResponseDeleteRange.Deleted, r.ResponseDeleteRange.PrevKvs)
			case r.ResponsePut != nil:
				p.put(r.ResponsePut.Header, r.ResponsePut.PrevKv)
			case r.ResponseRange != nil:
				rr := r.ResponseRange
				p.get(rr.Header, rr.Kvs, rr.More, rr.Count)
			}
		}
		return p.b.String()
	}
	var b strings.Builder
	if t.Succeeded {
		b.WriteString("SUCCESS\n")
	} else {
		b.WriteString("FAILURE\n")
	}
	for _, r := range t.Responses {
		b.WriteString("\n")
		switch {
		case r.ResponseDeleteRange != nil:
			d := r.ResponseDeleteRange
			b.WriteString(strconv.FormatInt(d.Deleted, 10) + "\n")
			for _, kv := range d.PrevKvs {
				printKV(&b, false, kv)
			}
		case r.ResponsePut != nil:
			b.WriteString("OK\n")
			if r.ResponsePut.PrevKv != nil {
				printKV(&b, false, r.ResponsePut.PrevKv)
			}
		case r.ResponseRange != nil:
			for _, kv := range r.ResponseRange.Kvs {
				printKV(&b, false, kv)
			}
		}
	}
	return b.String()
}

func txnJSON(h mvcc.ResponseHeader, t *mvcc.TxnResponse) jsonTxn {
	out := jsonTxn{Header: header(h), Succeeded: t.Succeeded}
	for _, r := range t.Responses {
		var one any
		switch {
		case r.ResponseRange != nil:
			rr := r.ResponseRange
			one = struct {
				R jsonRange `json:"response_range"`
			}{jsonRange{Header: header(rr.Header), Kvs: kvPtrsJSON(rr.Kvs), More: rr.More, Count: rr.Count}}
		case r.ResponsePut != nil:
			one = struct {
				R jsonPut `json:"response_put"`
			}{jsonPut{Header: header(r.ResponsePut.Header), PrevKv: kvJSON(r.ResponsePut.PrevKv)}}
		case r.ResponseDeleteRange != nil:
			d := r.ResponseDeleteRange
			one = struct {
				R jsonDelete `json:"response_delete_range"`
			}{jsonDelete{Header: header(d.Header), Deleted: d.Deleted, PrevKvs: kvPtrsJSON(d.PrevKvs)}}
		case r.ResponseTxn != nil:
			one = struct {
				R jsonTxn `json:"response_txn"`
			}{txnJSON(r.ResponseTxn.Header, r.ResponseTxn)}
		}
		out.Responses = append(out.Responses, jsonResponse{Response: one})
	}
	return out
}

// jsonEvent is mvccpb.Event: PUT (0) is left out.
type jsonEvent struct {
	Type   int32   `json:"type,omitempty"`
	Kv     *jsonKV `json:"kv,omitempty"`
	PrevKv *jsonKV `json:"prev_kv,omitempty"`
}

// jsonWatch is clientv3.WatchResponse as encoding/json writes it.
type jsonWatch struct {
	Header          jsonHeader
	Events          []jsonEvent
	CompactRevision int64
	Canceled        bool
	Created         bool
}

// formatWatch prints one watch response: the events that came in it.
func formatWatch(evs []sim.WatchEvent, format string) string {
	if len(evs) == 0 {
		return ""
	}
	h := evs[0].Header
	switch format {
	case "json":
		out := jsonWatch{Header: *header(h)}
		for i := range evs {
			e := jsonEvent{Kv: kvJSON(&evs[i].KV), PrevKv: kvJSON(evs[i].PrevKV)}
			if evs[i].Type == "DELETE" {
				e.Type = 1
			}
			out.Events = append(out.Events, e)
		}
		return jsonMarshal(out)
	case "fields":
		var p fieldsPrinter
		p.hdr(h)
		for i := range evs {
			p.line("Type", evs[i].Type)
			if evs[i].PrevKV != nil {
				p.kv("Prev", evs[i].PrevKV)
			}
			p.kv("", &evs[i].KV)
		}
		return p.b.String()
	}
	var b strings.Builder
	for i := range evs {
		b.WriteString(evs[i].Type + "\n")
		if evs[i].PrevKV != nil {
			printKV(&b, false, evs[i].PrevKV)
		}
		printKV(&b, false, &evs[i].KV)
	}
	return b.String()
}
