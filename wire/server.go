package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sync"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/sim"
)

// Endpoint is where a member serves: its name and a host:port to listen on.
type Endpoint struct {
	Member string
	Addr   string
	// TLS, when set, serves TLS (its ClientAuth decides whether clients
	// need certificates).
	TLS *tls.Config
}

// Server is the network side: a gRPC server per member, each on its own
// listener, handing every call to a Front.
type Server struct {
	front *Front

	mu      sync.Mutex
	members map[string]*endpoint
	order   []string
	states  map[string][2]bool // what Follow last saw: up, stalled
}

// endpoint is one member's listener and gRPC server, which come and go
// with the member.
type endpoint struct {
	name, addr string
	tls        *tls.Config
	gate       *gate
	srv        *grpc.Server
	ln         net.Listener
}

// Listen opens an endpoint for each member, serving etcd's KV, Watch,
// Lease, Cluster and Maintenance services. Requests go to front.
func Listen(front *Front, eps []Endpoint) (*Server, error) {
	s := &Server{front: front, members: map[string]*endpoint{}}
	for _, ep := range eps {
		e := &endpoint{name: ep.Member, addr: ep.Addr, tls: ep.TLS, gate: newGate()}
		s.members[ep.Member] = e
		s.order = append(s.order, ep.Member)
		if err := s.start(e); err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// Addr returns where the member listens (the address it was given; with
// port 0, the one chosen).
func (s *Server) Addr(member string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.members[member]; e != nil {
		return e.addr
	}
	return ""
}

func (s *Server) start(e *endpoint) error {
	ln, err := listenLoopback(e.addr)
	if err != nil {
		return fmt.Errorf("%s: %w", e.name, err)
	}
	e.addr = ln.Addr().String()
	var opts []grpc.ServerOption
	if e.tls != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(e.tls)))
	}
	srv := grpc.NewServer(append(opts, serverOptions()...)...)
	h := &handler{front: s.front, member: e.name}
	pb.RegisterKVServer(srv, h)
	pb.RegisterWatchServer(srv, h)
	pb.RegisterLeaseServer(srv, h)
	pb.RegisterClusterServer(srv, h)
	pb.RegisterMaintenanceServer(srv, h)
	pb.RegisterAuthServer(srv, h)
	e.srv, e.ln = srv, ln
	go func() { _ = srv.Serve(&gatedListener{Listener: ln, gate: e.gate}) }()
	return nil
}

// etcd v3.6.16's gRPC server settings at its defaults (server/embed:
// config.go's defaults, etcd.go's keepalive options; v3rpc/grpc.go's
// message and stream limits).
const (
	// MaxRequestBytes is --max-request-bytes; gRPC takes messages up to
	// it plus grpcOverheadBytes.
	MaxRequestBytes   = 1536 * 1024
	grpcOverheadBytes = 512 * 1024
	maxSendBytes      = math.MaxInt32
	// MaxConcurrentStreams is --max-concurrent-streams.
	MaxConcurrentStreams = math.MaxUint32
	// KeepaliveMinTime is --grpc-keepalive-min-time: a client that pings
	// more often gets GoAway ENHANCE_YOUR_CALM "too_many_pings" (gRPC's
	// own default is 5 minutes, which kube-apiserver's 30s keepalive
	// breaks).
	KeepaliveMinTime = 5 * time.Second
	// KeepaliveInterval and KeepaliveTimeout are --grpc-keepalive-interval
	// and --grpc-keepalive-timeout: the server's own pings.
	KeepaliveInterval = 2 * time.Hour
	KeepaliveTimeout  = 20 * time.Second
)

// serverOptions are etcd's gRPC server options (but its codec,
// interceptors and credentials).
func serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxRequestBytes + grpcOverheadBytes),
		grpc.MaxSendMsgSize(maxSendBytes),
		grpc.MaxConcurrentStreams(MaxConcurrentStreams),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: KeepaliveMinTime, PermitWithoutStream: false}),
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: KeepaliveInterval, Timeout: KeepaliveTimeout}),
	}
}

// listenLoopback listens at addr, which must be on a loopback address: the
// wire serves this machine only (a simulated cluster has no business on a
// network).
func listenLoopback(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("%s is not a loopback address: raftsim serves this machine only", addr)
	}
	return net.Listen("tcp", addr) // checked above: Loopback only
}

// SetState makes a member's endpoint do what the member does: a member
// that is down refuses connections and drops those it had; a stalled one
// freezes them. It is called by the owner after each advance; it returns
// an error only if a member that came back up cannot listen again.
func (s *Server) SetState(member string, up, stalled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.members[member]
	if e == nil {
		return nil
	}
	e.gate.set(stalled)
	switch {
	case !up && e.srv != nil:
		e.gate.set(false) // let the connections close
		e.srv.Stop()
		e.srv, e.ln = nil, nil
	case up && e.srv == nil:
		return s.start(e)
	}
	return nil
}

// Follow makes every endpoint do what its member does now (SetState), for
// the members whose state changed since the last call. The owner calls it
// after each advance of w.
func (s *Server) Follow(w *sim.World) error {
	if s.states == nil {
		s.states = map[string][2]bool{}
	}
	for _, in := range w.Infos() {
		st := [2]bool{in.Up, in.Stalled}
		if old, ok := s.states[in.Name]; ok && old == st {
			continue
		}
		s.states[in.Name] = st
		if err := s.SetState(in.Name, in.Up, in.Stalled); err != nil {
			return err
		}
	}
	return nil
}

// Stop closes every endpoint.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.members {
		e.gate.set(false)
		if e.srv != nil {
			e.srv.Stop()
			e.srv, e.ln = nil, nil
		}
	}
}

// handler serves one member's endpoint.
type handler struct {
	pb.UnimplementedKVServer
	pb.UnimplementedWatchServer
	pb.UnimplementedLeaseServer
	pb.UnimplementedClusterServer
	pb.UnimplementedMaintenanceServer
	pb.UnimplementedAuthServer
	front  *Front
	member string
}

// peerAddr names a call's client by its address.
func peerAddr(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String()
	}
	return "unknown"
}

// tokenOf is the simple token a call carries in its gRPC metadata, as
// etcd's AuthInfoFromCtx reads it ("token", or grpc-gateway's
// "authorization"); "" for none.
func tokenOf(ctx context.Context) string {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return ""
	}
	ts := md.Get(rpctypes.TokenFieldNameGRPC)
	if len(ts) == 0 {
		ts = md.Get(rpctypes.TokenFieldNameSwagger)
	}
	if len(ts) == 0 {
		return ""
	}
	return ts[0]
}

// call hands a unary request to the owner and waits for its answer; if
// the client gives up first, the owner is told.
func call[Resp any](h *handler, ctx context.Context, msg any) (Resp, error) {
	var zero Resp
	done := make(chan struct{})
	var resp any
	var err error
	var mu sync.Mutex
	gone := false // the caller has given up: an answer still to come is thrown away
	r := &request{member: h.member, peer: peerAddr(ctx), msg: msg, token: tokenOf(ctx)}
	r.answer = func(a any, e error) {
		mu.Lock()
		defer mu.Unlock()
		if gone {
			discard(a)
			return
		}
		resp, err = a, e
		close(done)
	}
	// giveUp says the caller will not take the answer: one that came
	// already, or comes later, is thrown away.
	giveUp := func() {
		mu.Lock()
		defer mu.Unlock()
		gone = true
		select {
		case <-done:
			discard(resp)
		default:
		}
	}
	select {
	case h.front.inbox <- r:
	case <-ctx.Done():
		return zero, status.FromContextError(ctx.Err()).Err()
	case <-h.front.stopped:
		return zero, rpctypes.ErrGRPCStopped
	}
	select {
	case <-done:
	case <-ctx.Done():
		giveUp()
		select {
		case h.front.inbox <- &cancel{r}:
		case <-h.front.stopped:
		}
		return zero, status.FromContextError(ctx.Err()).Err()
	case <-h.front.stopped:
		giveUp()
		return zero, rpctypes.ErrGRPCStopped
	}
	if err != nil {
		return zero, err
	}
	return resp.(Resp), nil
}

func (h *handler) Range(ctx context.Context, r *pb.RangeRequest) (*pb.RangeResponse, error) {
	return call[*pb.RangeResponse](h, ctx, r)
}

func (h *handler) Put(ctx context.Context, r *pb.PutRequest) (*pb.PutResponse, error) {
	return call[*pb.PutResponse](h, ctx, r)
}

func (h *handler) DeleteRange(ctx context.Context, r *pb.DeleteRangeRequest) (*pb.DeleteRangeResponse, error) {
	return call[*pb.DeleteRangeResponse](h, ctx, r)
}

func (h *handler) Txn(ctx context.Context, r *pb.TxnRequest) (*pb.TxnResponse, error) {
	return call[*pb.TxnResponse](h, ctx, r)
}

func (h *handler) Compact(ctx context.Context, r *pb.CompactionRequest) (*pb.CompactionResponse, error) {
	return call[*pb.CompactionResponse](h, ctx, r)
}

func (h *handler) LeaseGrant(ctx context.Context, r *pb.LeaseGrantRequest) (*pb.LeaseGrantResponse, error) {
	return call[*pb.LeaseGrantResponse](h, ctx, r)
}

func (h *handler) LeaseRevoke(ctx context.Context, r *pb.LeaseRevokeRequest) (*pb.LeaseRevokeResponse, error) {
	return call[*pb.LeaseRevokeResponse](h, ctx, r)
}

func (h *handler) LeaseTimeToLive(ctx context.Context, r *pb.LeaseTimeToLiveRequest) (*pb.LeaseTimeToLiveResponse, error) {
	return call[*pb.LeaseTimeToLiveResponse](h, ctx, r)
}

func (h *handler) LeaseLeases(ctx context.Context, r *pb.LeaseLeasesRequest) (*pb.LeaseLeasesResponse, error) {
	return call[*pb.LeaseLeasesResponse](h, ctx, r)
}

func (h *handler) MemberAdd(ctx context.Context, r *pb.MemberAddRequest) (*pb.MemberAddResponse, error) {
	return call[*pb.MemberAddResponse](h, ctx, r)
}

func (h *handler) MemberRemove(ctx context.Context, r *pb.MemberRemoveRequest) (*pb.MemberRemoveResponse, error) {
	return call[*pb.MemberRemoveResponse](h, ctx, r)
}

func (h *handler) MemberUpdate(ctx context.Context, r *pb.MemberUpdateRequest) (*pb.MemberUpdateResponse, error) {
	return call[*pb.MemberUpdateResponse](h, ctx, r)
}

func (h *handler) MemberList(ctx context.Context, r *pb.MemberListRequest) (*pb.MemberListResponse, error) {
	return call[*pb.MemberListResponse](h, ctx, r)
}

func (h *handler) MemberPromote(ctx context.Context, r *pb.MemberPromoteRequest) (*pb.MemberPromoteResponse, error) {
	return call[*pb.MemberPromoteResponse](h, ctx, r)
}

func (h *handler) Alarm(ctx context.Context, r *pb.AlarmRequest) (*pb.AlarmResponse, error) {
	return call[*pb.AlarmResponse](h, ctx, r)
}

func (h *handler) Status(ctx context.Context, r *pb.StatusRequest) (*pb.StatusResponse, error) {
	return call[*pb.StatusResponse](h, ctx, r)
}

func (h *handler) Defragment(ctx context.Context, r *pb.DefragmentRequest) (*pb.DefragmentResponse, error) {
	return call[*pb.DefragmentResponse](h, ctx, r)
}

func (h *handler) HashKV(ctx context.Context, r *pb.HashKVRequest) (*pb.HashKVResponse, error) {
	return call[*pb.HashKVResponse](h, ctx, r)
}

func (h *handler) Downgrade(ctx context.Context, r *pb.DowngradeRequest) (*pb.DowngradeResponse, error) {
	return call[*pb.DowngradeResponse](h, ctx, r)
}

func (h *handler) MoveLeader(ctx context.Context, r *pb.MoveLeaderRequest) (*pb.MoveLeaderResponse, error) {
	return call[*pb.MoveLeaderResponse](h, ctx, r)
}

// The Auth service: every call goes through raft (translate.go's authCommand).

func (h *handler) AuthEnable(ctx context.Context, r *pb.AuthEnableRequest) (*pb.AuthEnableResponse, error) {
	return call[*pb.AuthEnableResponse](h, ctx, r)
}

func (h *handler) AuthDisable(ctx context.Context, r *pb.AuthDisableRequest) (*pb.AuthDisableResponse, error) {
	return call[*pb.AuthDisableResponse](h, ctx, r)
}

func (h *handler) AuthStatus(ctx context.Context, r *pb.AuthStatusRequest) (*pb.AuthStatusResponse, error) {
	return call[*pb.AuthStatusResponse](h, ctx, r)
}

func (h *handler) Authenticate(ctx context.Context, r *pb.AuthenticateRequest) (*pb.AuthenticateResponse, error) {
	return call[*pb.AuthenticateResponse](h, ctx, r)
}

func (h *handler) UserAdd(ctx context.Context, r *pb.AuthUserAddRequest) (*pb.AuthUserAddResponse, error) {
	return call[*pb.AuthUserAddResponse](h, ctx, r)
}

func (h *handler) UserGet(ctx context.Context, r *pb.AuthUserGetRequest) (*pb.AuthUserGetResponse, error) {
	return call[*pb.AuthUserGetResponse](h, ctx, r)
}

func (h *handler) UserList(ctx context.Context, r *pb.AuthUserListRequest) (*pb.AuthUserListResponse, error) {
	return call[*pb.AuthUserListResponse](h, ctx, r)
}

func (h *handler) UserDelete(ctx context.Context, r *pb.AuthUserDeleteRequest) (*pb.AuthUserDeleteResponse, error) {
	return call[*pb.AuthUserDeleteResponse](h, ctx, r)
}

func (h *handler) UserChangePassword(ctx context.Context, r *pb.AuthUserChangePasswordRequest) (*pb.AuthUserChangePasswordResponse, error) {
	return call[*pb.AuthUserChangePasswordResponse](h, ctx, r)
}

func (h *handler) UserGrantRole(ctx context.Context, r *pb.AuthUserGrantRoleRequest) (*pb.AuthUserGrantRoleResponse, error) {
	return call[*pb.AuthUserGrantRoleResponse](h, ctx, r)
}

func (h *handler) UserRevokeRole(ctx context.Context, r *pb.AuthUserRevokeRoleRequest) (*pb.AuthUserRevokeRoleResponse, error) {
	return call[*pb.AuthUserRevokeRoleResponse](h, ctx, r)
}

func (h *handler) RoleAdd(ctx context.Context, r *pb.AuthRoleAddRequest) (*pb.AuthRoleAddResponse, error) {
	return call[*pb.AuthRoleAddResponse](h, ctx, r)
}

func (h *handler) RoleGet(ctx context.Context, r *pb.AuthRoleGetRequest) (*pb.AuthRoleGetResponse, error) {
	return call[*pb.AuthRoleGetResponse](h, ctx, r)
}

func (h *handler) RoleList(ctx context.Context, r *pb.AuthRoleListRequest) (*pb.AuthRoleListResponse, error) {
	return call[*pb.AuthRoleListResponse](h, ctx, r)
}

func (h *handler) RoleDelete(ctx context.Context, r *pb.AuthRoleDeleteRequest) (*pb.AuthRoleDeleteResponse, error) {
	return call[*pb.AuthRoleDeleteResponse](h, ctx, r)
}

func (h *handler) RoleGrantPermission(ctx context.Context, r *pb.AuthRoleGrantPermissionRequest) (*pb.AuthRoleGrantPermissionResponse, error) {
	return call[*pb.AuthRoleGrantPermissionResponse](h, ctx, r)
}

func (h *handler) RoleRevokePermission(ctx context.Context, r *pb.AuthRoleRevokePermissionRequest) (*pb.AuthRoleRevokePermissionResponse, error) {
	return call[*pb.AuthRoleRevokePermissionResponse](h, ctx, r)
}

// Snapshot streams the member's backend as etcd's does: the database in
// chunks of 32 KiB, each saying how much remains, then its sha256. The
// owner writes the database (package snapshot) at the instant it takes
// the request in; this goroutine streams the file.
//
// The temporary file is removed as soon as it is open (the stream reads
// it through its descriptor), so that none is left behind, whether the
// stream ends, its client leaves or never reads, or serve exits first; a
// system that cannot remove an open file has it removed when the stream
// ends.
func (h *handler) Snapshot(r *pb.SnapshotRequest, srv pb.Maintenance_SnapshotServer) error {
	sf, err := call[*snapshotFile](h, srv.Context(), r)
	if err != nil {
		return err
	}
	f, err := os.Open(sf.path)
	if err != nil {
		_ = os.Remove(sf.path)
		return status.Errorf(codes.Internal, "reading the snapshot: %v"+note, err)
	}
	removed := os.Remove(sf.path) == nil
	defer func() {
		f.Close()
		if !removed {
			_ = os.Remove(sf.path) // closed first: it could not be removed while open
		}
	}()
	const chunk = 32 * 1024 // etcd's snapshotSendBufferSize
	for sent := int64(0); sent < sf.dbSize; {
		n := min(chunk, sf.dbSize-sent)
		buf := make([]byte, n) // gRPC may hold a message after Send
		if _, err := io.ReadFull(f, buf); err != nil {
			return status.Errorf(codes.Internal, "reading the snapshot: %v"+note, err)
		}
		sent += n
		if err := srv.Send(&pb.SnapshotResponse{RemainingBytes: uint64(sf.dbSize - sent), Blob: buf,
			Version: sf.version}); err != nil {
			return err
		}
	}
	sum, err := io.ReadAll(f)
	if err != nil {
		return status.Errorf(codes.Internal, "reading the snapshot: %v"+note, err)
	}
	return srv.Send(&pb.SnapshotResponse{Blob: sum, Version: sf.version})
}

// discard throws away an answer nobody takes: a snapshot's temporary
// file is removed.
func discard(a any) {
	if f, ok := a.(*snapshotFile); ok {
		_ = os.Remove(f.path)
	}
}

// stream is a bidirectional stream (Watch, LeaseKeepAlive): requests go to
// the owner one message at a time; answers come back through an unbounded
// queue, so that the owner never waits for a slow client.
type stream struct {
	member, peer  string
	token         string // the simple token of the stream's metadata
	requireLeader bool
	nextWatch     int64 // owner's side only

	mu     sync.Mutex
	queue  []streamOut
	wake   chan struct{}
	closed bool
}

type streamOut struct {
	resp any
	err  error // ends the stream
}

func newStream(ctx context.Context, member string) *stream {
	st := &stream{member: member, peer: peerAddr(ctx), token: tokenOf(ctx), wake: make(chan struct{}, 1)}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		// clientv3's WithRequireLeader (etcdctl watch sets it).
		for _, v := range md.Get(rpctypes.MetadataRequireLeaderKey) {
			st.requireLeader = st.requireLeader || v == rpctypes.MetadataHasLeader
		}
	}
	return st
}

// send queues an answer (or, with err, the end of the stream). It never
// blocks.
func (st *stream) send(resp any, err error) {
	st.mu.Lock()
	if !st.closed {
		st.queue = append(st.queue, streamOut{resp, err})
	}
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// pump sends queued answers with send until the stream ends: an error
// queued by the owner (returned), or ctx done.
func (st *stream) pump(ctx context.Context, send func(any) error) error {
	for {
		st.mu.Lock()
		q := st.queue
		st.queue = nil
		st.mu.Unlock()
		for _, o := range q {
			if o.err != nil {
				return o.err
			}
			if err := send(o.resp); err != nil {
				return err
			}
		}
		select {
		case <-st.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// serveStream runs a bidirectional stream: recv reads the client's next
// message (nil to skip one), send writes an answer. It ends when either
// side does, and tells the owner.
func (h *handler) serveStream(ctx context.Context, st *stream, recv func() (any, error), send func(any) error) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	defer func() {
		st.mu.Lock()
		st.closed = true
		st.mu.Unlock()
		select {
		case h.front.inbox <- &streamEnd{st}:
		case <-h.front.stopped:
		}
	}()
	errc := make(chan error, 1)
	go func() {
		for {
			msg, err := recv()
			if err != nil {
				errc <- err
				return
			}
			if msg == nil {
				continue
			}
			r := &request{member: h.member, peer: st.peer, msg: msg, st: st, token: st.token}
			r.answer = func(resp any, err error) { st.send(resp, err) }
			select {
			case h.front.inbox <- r:
			case <-ctx.Done():
				return
			case <-h.front.stopped:
				return
			}
		}
	}()
	go func() { errc <- st.pump(ctx, send) }()
	err := <-errc
	if err == nil || errors.Is(err, context.Canceled) {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return nil // the client went away (io.EOF)
}

func (h *handler) Watch(srv pb.Watch_WatchServer) error {
	st := newStream(srv.Context(), h.member)
	return h.serveStream(srv.Context(), st, func() (any, error) {
		req, err := srv.Recv()
		if err != nil {
			return nil, err
		}
		switch u := req.RequestUnion.(type) {
		case *pb.WatchRequest_CreateRequest:
			return u.CreateRequest, nil
		case *pb.WatchRequest_CancelRequest:
			return u.CancelRequest, nil
		case *pb.WatchRequest_ProgressRequest:
			return u.ProgressRequest, nil
		}
		return nil, nil
	}, func(resp any) error { return srv.Send(resp.(*pb.WatchResponse)) })
}

func (h *handler) LeaseKeepAlive(srv pb.Lease_LeaseKeepAliveServer) error {
	st := newStream(srv.Context(), h.member)
	return h.serveStream(srv.Context(), st, func() (any, error) {
		req, err := srv.Recv()
		if err != nil {
			return nil, err
		}
		return req, nil
	}, func(resp any) error { return srv.Send(resp.(*pb.LeaseKeepAliveResponse)) })
}

// gate freezes connections while its member is stalled.
type gate struct {
	mu     sync.Mutex
	frozen bool
	thaw   chan struct{} // closed when the gate opens
}

func newGate() *gate {
	g := &gate{thaw: make(chan struct{})}
	close(g.thaw)
	return g
}

func (g *gate) set(frozen bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if frozen == g.frozen {
		return
	}
	g.frozen = frozen
	if frozen {
		g.thaw = make(chan struct{})
	} else {
		close(g.thaw)
	}
}

// wait blocks while the gate is frozen.
func (g *gate) wait() {
	g.mu.Lock()
	c := g.thaw
	g.mu.Unlock()
	<-c
}

type gatedListener struct {
	net.Listener
	gate *gate
}

func (l *gatedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gatedConn{Conn: c, gate: l.gate}, nil
}

// gatedConn reads and writes nothing while its gate is frozen, as a
// process under SIGSTOP: the kernel has accepted the connection, the
// process does not look at it.
type gatedConn struct {
	net.Conn
	gate *gate
}

func (c *gatedConn) Read(b []byte) (int, error) {
	c.gate.wait()
	n, err := c.Conn.Read(b)
	if n > 0 {
		c.gate.wait() // frozen while the bytes came in: hold them
	}
	return n, err
}

func (c *gatedConn) Write(b []byte) (int, error) {
	c.gate.wait()
	return c.Conn.Write(b)
}
