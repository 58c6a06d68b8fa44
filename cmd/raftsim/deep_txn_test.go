//go:build !js

package main

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"google.golang.org/grpc"
)

// deepTxnBytes is deepTxn(depth) encoded, built from the inside out in
// linear time: gogo-protobuf's own Marshal calls Size at every level, and
// takes tens of seconds at 10,000 levels on the client's side, which is no
// part of what serve does with it.
func deepTxnBytes(depth int) []byte {
	field := func(num int, b []byte) []byte {
		out := binary.AppendUvarint(nil, uint64(num<<3|2))
		out = binary.AppendUvarint(out, uint64(len(b)))
		return append(out, b...)
	}
	inner, err := deepTxn(1).Marshal()
	if err != nil {
		panic(err)
	}
	for range depth - 1 {
		inner = field(2, field(4, inner)) // TxnRequest.success { RequestOp.request_txn { ... } }
	}
	return inner
}

// rawCodec sends a message's bytes as they are and decodes the answer
// with gogo-protobuf.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) { return v.([]byte), nil }
func (rawCodec) Unmarshal(data []byte, v any) error {
	return v.(interface{ Unmarshal([]byte) error }).Unmarshal(data)
}
func (rawCodec) Name() string { return "proto" }

// sendTxn sends an encoded TxnRequest.
func sendTxn(ctx context.Context, cc *grpc.ClientConn, req []byte) error {
	var resp pb.TxnResponse
	return cc.Invoke(ctx, "/etcdserverpb.KV/Txn", req, &resp, grpc.ForceCodec(rawCodec{}))
}

// deepTxn is a transaction nested depth deep, each level one operation:
// the innermost a put.
func deepTxn(depth int) *pb.TxnRequest {
	t := &pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte("k"), Value: []byte("v")}}}}}
	for range depth - 1 {
		t = &pb.TxnRequest{Success: []*pb.RequestOp{{Request: &pb.RequestOp_RequestTxn{RequestTxn: t}}}}
	}
	return t
}

// TestDeepTxnIsRefusedAtOnce: a transaction nested 10,000 deep (about
// 50 KB) is refused as etcd refuses it, "too many operations in txn
// request" (--max-txn-ops, 128, less each level's count at each level),
// and serve answers Status meanwhile.
func TestDeepTxnIsRefusedAtOnce(t *testing.T) {
	s := serve(t)
	c, _ := newClient(t, "http://"+s.eps[0])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req := deepTxnBytes(10_000)
	t.Logf("a txn nested 10,000 deep is %d bytes", len(req))
	cc := c.ActiveConnection()
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- sendTxn(ctx, cc, req) }()
	if _, err := c.Status(ctx, s.eps[0]); err != nil {
		t.Errorf("Status beside the deep txn: %v", err)
	}
	err := <-done
	t.Logf("refused in %s (load: a figure, not a bound)", time.Since(start))
	if err == nil || !strings.Contains(err.Error(), "etcdserver: too many operations in txn request") {
		t.Errorf("a txn nested 10,000 deep: %v, want etcd's 'too many operations in txn request'", err)
	}
	// 128 deep is what etcd takes; 129 it refuses.
	for _, tc := range []struct {
		depth int
		ok    bool
	}{{128, true}, {129, false}} {
		start := time.Now()
		err := sendTxn(ctx, cc, deepTxnBytes(tc.depth))
		t.Logf("%d deep: %v in %s", tc.depth, err, time.Since(start))
		if ok := err == nil; ok != tc.ok || !ok && !strings.Contains(err.Error(), "too many operations") {
			t.Errorf("a txn nested %d deep: %v", tc.depth, err)
		}
	}
	s.replaysToServedTrace()
}
