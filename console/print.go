package console

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/raftsim/raftsim/sim"
)

// The key-value and lease verbs print etcdctl v3.6's output, byte for byte,
// from etcd's own response types: the simple printer (printer_simple.go),
// the JSON printer (encoding/json of etcd's gogo-generated response types,
// whose fields are omitempty, as etcdctl's printJSON does) and the fields
// printer (printer_fields.go). The table printer supports none of them.

const tableUnsupported = "Error: table not supported as output format\n"

func jsonMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "Error: " + err.Error() + "\n"
	}
	return string(b) + "\n"
}

// fieldsPrinter writes etcdctl's -w fields.
type fieldsPrinter struct{ b strings.Builder }

func (p *fieldsPrinter) hdr(h *etcdserverpb.ResponseHeader) { writeFieldsHeader(&p.b, h) }

func (p *fieldsPrinter) kv(pfx string, kv *mvccpb.KeyValue) {
	fmt.Fprintf(&p.b, "\"%sKey\" : %q\n\"%sCreateRevision\" : %d\n\"%sModRevision\" : %d\n\"%sVersion\" : %d\n\"%sValue\" : %q\n\"%sLease\" : %d\n",
		pfx, kv.Key, pfx, kv.CreateRevision, pfx, kv.ModRevision, pfx, kv.Version, pfx, kv.Value, pfx, kv.Lease)
}

func (p *fieldsPrinter) line(name string, v any) { fmt.Fprintf(&p.b, "\"%s\" : %v\n", name, v) }

func (p *fieldsPrinter) get(r *etcdserverpb.RangeResponse) {
	p.hdr(r.Header)
	for _, kv := range r.Kvs {
		p.kv("", kv)
	}
	p.line("More", r.More)
	p.line("Count", r.Count)
}

func (p *fieldsPrinter) put(r *etcdserverpb.PutResponse) {
	p.hdr(r.Header)
	if r.PrevKv != nil {
		p.kv("Prev", r.PrevKv)
	}
}

func (p *fieldsPrinter) del(r *etcdserverpb.DeleteRangeResponse) {
	p.hdr(r.Header)
	p.line("Deleted", r.Deleted)
	for _, kv := range r.PrevKvs {
		p.kv("Prev", kv)
	}
}

// printKV is etcdctl's simple printKV: the key, then the value.
func printKV(b *strings.Builder, valueOnly bool, kv *mvccpb.KeyValue) {
	if !valueOnly {
		b.Write(kv.Key)
		b.WriteString("\n")
	}
	b.Write(kv.Value)
	b.WriteString("\n")
}

// formatGet prints a get's answer.
func formatGet(op *sim.Op, format string, valueOnly bool) string {
	r := op.Resp.Range
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(r)
	case "fields":
		var p fieldsPrinter
		p.get(r)
		return p.b.String()
	}
	var b strings.Builder
	for _, kv := range r.Kvs {
		printKV(&b, valueOnly, kv)
	}
	if op.Stale {
		b.WriteString("# stale read: " + op.StaleNote() + "\n")
	}
	return b.String()
}

// formatPut prints a put's answer.
func formatPut(op *sim.Op, format string) string {
	r := op.Resp.Put
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(r)
	case "fields":
		var p fieldsPrinter
		p.put(r)
		return p.b.String()
	}
	var b strings.Builder
	b.WriteString("OK\n")
	if r.PrevKv != nil {
		printKV(&b, false, r.PrevKv)
	}
	return b.String()
}

// formatDel prints a delete's answer.
func formatDel(op *sim.Op, format string) string {
	r := op.Resp.DeleteRange
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(r)
	case "fields":
		var p fieldsPrinter
		p.del(r)
		return p.b.String()
	}
	var b strings.Builder
	b.WriteString(strconv.FormatInt(r.Deleted, 10) + "\n")
	for _, kv := range r.PrevKvs {
		printKV(&b, false, kv)
	}
	return b.String()
}

// formatTxn prints a transaction's answer. The header is the whole
// transaction's; each response inside carries only its revision, as
// etcd's apply layer fills it in.
func formatTxn(op *sim.Op, format string) string {
	t := op.Resp.Txn
	if t == nil {
		t = &etcdserverpb.TxnResponse{Header: op.Header()}
	}
	switch format {
	case "table":
		return tableUnsupported
	case "json":
		return jsonMarshal(t)
	case "fields":
		var p fieldsPrinter
		p.hdr(t.Header)
		p.line("Succeeded", t.Succeeded)
		for _, r := range t.Responses {
			switch {
			case r.GetResponseDeleteRange() != nil:
				p.del(r.GetResponseDeleteRange())
			case r.GetResponsePut() != nil:
				p.put(r.GetResponsePut())
			case r.GetResponseRange() != nil:
				p.get(r.GetResponseRange())
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
		case r.GetResponseDeleteRange() != nil:
			d := r.GetResponseDeleteRange()
			b.WriteString(strconv.FormatInt(d.Deleted, 10) + "\n")
			for _, kv := range d.PrevKvs {
				printKV(&b, false, kv)
			}
		case r.GetResponsePut() != nil:
			b.WriteString("OK\n")
			if kv := r.GetResponsePut().PrevKv; kv != nil {
				printKV(&b, false, kv)
			}
		case r.GetResponseRange() != nil:
			for _, kv := range r.GetResponseRange().Kvs {
				printKV(&b, false, kv)
			}
		}
	}
	return b.String()
}

// watchResponse is clientv3.WatchResponse as etcdctl's JSON printer writes
// it: its exported fields, untagged, around etcd's own types.
type watchResponse struct {
	Header          etcdserverpb.ResponseHeader
	Events          []*mvccpb.Event
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
		out := watchResponse{Header: h}
		for i := range evs {
			out.Events = append(out.Events, &evs[i].Event)
		}
		return jsonMarshal(out)
	case "fields":
		var p fieldsPrinter
		p.hdr(&h)
		for i := range evs {
			p.line("Type", evs[i].Type)
			if evs[i].PrevKv != nil {
				p.kv("Prev", evs[i].PrevKv)
			}
			p.kv("", evs[i].Kv)
		}
		return p.b.String()
	}
	var b strings.Builder
	for i := range evs {
		b.WriteString(evs[i].Type.String() + "\n")
		if evs[i].PrevKv != nil {
			printKV(&b, false, evs[i].PrevKv)
		}
		printKV(&b, false, evs[i].Kv)
	}
	return b.String()
}
