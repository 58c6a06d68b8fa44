package console

import (
	"fmt"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/dbsize"
	"github.com/raftsim/raftsim/rpcerr"
	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// What etcdctl v3.6 prints that several verbs share: the response header
// in JSON and in -w fields, sizes as go-humanize prints them, clientv3's
// log lines, and its error for an output format a verb has no printer for.

// header is the response header the named member puts on an answer now:
// the cluster, itself, its store's revision (if withRevision) and its raft
// term.
func (c *Console) header(name string, withRevision bool) *etcdserverpb.ResponseHeader {
	in, _ := c.w.Info(name)
	h := &etcdserverpb.ResponseHeader{ClusterId: c.w.ClusterID(), MemberId: in.MemberID, RaftTerm: in.Term}
	if withRevision {
		h.Revision, _, _ = c.w.MemberKV(name)
	}
	return h
}

// writeFieldsHeader writes a header as etcdctl's -w fields does (the
// revision only when it is set).
func writeFieldsHeader(b *strings.Builder, h *etcdserverpb.ResponseHeader) {
	fmt.Fprintln(b, `"ClusterID" :`, h.ClusterId)
	fmt.Fprintln(b, `"MemberID" :`, h.MemberId)
	if h.Revision > 0 {
		fmt.Fprintln(b, `"Revision" :`, h.Revision)
	}
	fmt.Fprintln(b, `"RaftTerm" :`, h.RaftTerm)
}

// unsupportedFormat is etcdctl's error for a format a verb cannot print.
func unsupportedFormat(format string) error {
	return fmt.Errorf("%s not supported as output format", format)
}

// humanBytes formats a size as go-humanize's Bytes does (SI units, one
// decimal below 10).
func humanBytes(n uint64) string { return dbsize.HumanBytes(n) }

// idHex formats a member ID as etcdctl's tables and simple output do.
func idHex(id uint64) string { return strconv.FormatUint(id, 16) }

// A connection as clientv3 describes it in its log lines.
const (
	peerNone = "Peer{Addr: <nil>, LocalAddr: <nil>, AuthInfo: <nil>}"
	// clientPtr stands for the address of etcdctl's client object in the
	// gRPC target (a pointer, different on every run).
	clientPtr = "0xc0001d4000"
)

// peerOf is the peer of a connection to an endpoint that answered.
func peerOf(addr string) string {
	return "Peer{Addr: '" + addr + "', LocalAddr: '127.0.0.1:40000', AuthInfo: 'insecure'}"
}

// hostPort is an endpoint as a dialer sees it: its client URL without the
// scheme.
func (c *Console) hostPort(name string) string {
	in, _ := c.w.Info(name)
	u := strings.TrimPrefix(strings.TrimPrefix(in.ClientURL, "http://"), "https://")
	return u
}

// clientWarn writes the line clientv3's retry interceptor logs (as JSON,
// on standard error) when an attempt of a call fails. logger is the
// client's logger name, first the endpoint its target names (its first
// endpoint).
func (c *Console) clientWarn(b *strings.Builder, logger, first, peer, method, err string) {
	c.clientWarnAt(b, c.w.Now(), 0, logger, first, peer, method, err)
}

// clientWarnAt is clientWarn for the attempt-th attempt, failed at t.
func (c *Console) clientWarnAt(b *strings.Builder, t sim.Time, attempt int, logger, first, peer, method, err string) {
	fmt.Fprintf(b, `{"level":"warn","ts":%q,"logger":%q,"caller":"v3@v3.6.16/retry_interceptor.go:68",`+
		`"msg":"retrying of unary invoker failed","target":"etcd-endpoints://%s/%s","peer":%q,"method":%q,"attempt":%d,"error":%q}`+"\n",
		wallClock(t), logger, clientPtr, first, peer, method, attempt, err)
}

// retryLog is the lines clientv3 logged for the attempts of etcdctl's call
// that failed and were retried (sim.Op.Retries).
func (c *Console) retryLog(cmd sim.Command, op *sim.Op) string {
	method, ok := methods[cmd.Kind]
	if !ok || cmd.By != "etcdctl" || len(op.Retries()) == 0 {
		return ""
	}
	first := c.firstEndpoint
	if first == "" {
		first = op.Member
	}
	var b strings.Builder
	for i, r := range op.Retries() {
		c.clientWarnAt(&b, r.At, i, "etcd-client", first, peerOf(c.hostPort(r.Member)), method, rpcError(r.Err))
	}
	return b.String()
}

// rpcError is an etcd error as gRPC reports it to the client.
func rpcError(msg string) string {
	if strings.HasPrefix(msg, "rpc error: ") {
		return msg
	}
	return rpcerr.Error(msg).Error()
}

// wallClock shows a virtual time as the timestamp of a log line: the
// virtual clock counts from the Unix epoch.
func wallClock(t sim.Time) string {
	ns := int64(t)
	s := ns / 1e9
	return fmt.Sprintf("1970-01-01T%02d:%02d:%02d.%06dZ", s/3600%24, s/60%60, s%60, ns%1e9/1e3)
}

// refusedErr is how gRPC reports a deadline that passed while it could not
// connect to a member that refuses connections.
func refusedErr(hostPort string) string {
	return `rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = "transport: Error while dialing: dial tcp ` +
		hostPort + `: connect: connection refused"`
}

// deadlineErr is how gRPC reports a deadline that passed while a member
// did not answer.
const deadlineErr = "rpc error: code = DeadlineExceeded desc = context deadline exceeded"

// version: etcdctl version.
func (c *Console) version(args []string, _ bool) error {
	f := newFlags("version")
	if _, err := f.parse(args, 0, 0, "version"); err != nil {
		return err
	}
	c.printf("etcdctl version: %s\nAPI version: 3.6\n", server.ServerVersion)
	return nil
}

// methods are the gRPC methods of etcdctl's unary calls, by command.
var methods = map[sim.CommandKind]string{
	sim.CmdPut: "/etcdserverpb.KV/Put", sim.CmdGet: "/etcdserverpb.KV/Range", sim.CmdDelete: "/etcdserverpb.KV/DeleteRange",
	sim.CmdTxn: "/etcdserverpb.KV/Txn", sim.CmdCompact: "/etcdserverpb.KV/Compact",
	sim.CmdLeaseGrant: "/etcdserverpb.Lease/LeaseGrant", sim.CmdLeaseRevoke: "/etcdserverpb.Lease/LeaseRevoke",
	sim.CmdLeaseTimeToLive: "/etcdserverpb.Lease/LeaseTimeToLive",
	sim.CmdAddMember:       "/etcdserverpb.Cluster/MemberAdd", sim.CmdRemoveMember: "/etcdserverpb.Cluster/MemberRemove",
	sim.CmdPromote: "/etcdserverpb.Cluster/MemberPromote", sim.CmdUpdateMember: "/etcdserverpb.Cluster/MemberUpdate",
	sim.CmdMemberList: "/etcdserverpb.Cluster/MemberList", sim.CmdAlarmList: "/etcdserverpb.Maintenance/Alarm",
	sim.CmdDowngrade: "/etcdserverpb.Maintenance/Downgrade",
}

// failureLog is the line clientv3 logs when etcdctl's call of cmd failed
// as op did; nothing for a request sent --via another client, or for a
// stream.
func (c *Console) failureLog(cmd sim.Command, op *sim.Op) string {
	method, ok := methods[cmd.Kind]
	if cmd.Kind == sim.CmdAuth {
		method, ok = authMethod(cmd.Req.Auth)
	}
	if !ok || cmd.By != "etcdctl" || op.Member == "" {
		return ""
	}
	var b strings.Builder
	peer := peerNone
	if in, ok := c.w.Info(op.Member); ok && in.Up && in.Ready {
		peer = peerOf(c.hostPort(op.Member))
	}
	first := c.firstEndpoint
	if first == "" {
		first = op.Member
	}
	c.clientWarnAt(&b, c.w.Now(), len(op.Retries()), "etcd-client", first, peer, method, rpcError(op.Err))
	return b.String()
}
