package wire

import (
	"fmt"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/sim"
)

// Front is the simulation's side of the wire. Its methods run on the
// goroutine that owns the world; the network side reaches it only through
// its inbox.
type Front struct {
	inbox   chan any      // *request, *cancel, *streamEnd
	stopped chan struct{} // closed by Close: the owner takes no more

	open   []*tracked
	world  *sim.World // the world the open operations belong to
	labels int        // labels handed out: x1, x2, ...

	// Apply applies a command to the world, and logs it: nil is the
	// world's own Do. The window sets its session's Do, which keeps the
	// session's command log.
	Apply func(sim.Command) (*sim.Op, error)
}

// apply applies c through Apply, or w.Do.
func (f *Front) apply(w *sim.World, c sim.Command) (*sim.Op, error) {
	if f.Apply != nil {
		return f.Apply(c)
	}
	return w.Do(c)
}

// NewFront returns a front whose inbox holds up to queue requests.
func NewFront(queue int) *Front {
	return &Front{inbox: make(chan any, queue), stopped: make(chan struct{})}
}

// Close tells the network side that the owner has stopped: calls still
// waiting are answered with etcd's "server stopped".
func (f *Front) Close() {
	select {
	case <-f.stopped:
	default:
		close(f.stopped)
	}
}

// request is one call, or one message of a stream, handed to the owner.
type request struct {
	member, peer string
	token        string // the simple token the call carries
	msg          any
	// answer is called once, on the owner's goroutine, with the answer or
	// an error; it must not block.
	answer func(resp any, err error)
	st     *stream // for a message of a stream
}

// cancel says the client of r has given up on it.
type cancel struct{ r *request }

// streamEnd says a stream has ended on the client's side.
type streamEnd struct{ st *stream }

// tracked is a request that has entered the world and not yet ended.
type tracked struct {
	r      *request
	label  string
	op     *sim.Op
	finish finisher
	// A watch: its stream, ID and filters, whether its creation was
	// answered, and how many events went out.
	watchID  int64
	filters  []pb.WatchCreateRequest_FilterType
	created  bool
	sent     int
	progress int // progress notifications sent
	// moveLeader: the transferee; the deadline after which it gives up.
	target   string
	deadline sim.Time
}

// Pending reports whether requests are waiting in the inbox.
func (f *Front) Pending() bool { return len(f.inbox) > 0 }

// Inbox is where the network side's requests arrive; an owner that waits
// for wall time selects on it, then calls Take.
func (f *Front) Inbox() <-chan any { return f.inbox }

// Take applies, at w's current time, every request that has arrived, and
// the one the owner already received from Inbox (nil for none). Before
// that the owner runs w up to now (w.RunUntil(w.Now())), as before any
// command. It returns the first violation of a safety invariant.
func (f *Front) Take(w *sim.World, first any) error {
	f.adopt(w)
	if first != nil {
		if err := f.take(w, first); err != nil {
			return err
		}
	}
	for {
		select {
		case m := <-f.inbox:
			if err := f.take(w, m); err != nil {
				return err
			}
		default:
			return nil
		}
	}
}

func (f *Front) take(w *sim.World, m any) error {
	switch m := m.(type) {
	case *cancel:
		return f.cancel(w, m.r)
	case *streamEnd:
		return f.cancelAll(w, func(t *tracked) bool { return t.r.st == m.st })
	case *request:
		return f.start(w, m)
	}
	return nil
}

// start applies one request.
func (f *Front) start(w *sim.World, r *request) error {
	if in, ok := w.Info(r.member); !ok || !in.Up {
		// It reached the endpoint before the member went down (a member
		// that is down refuses connections: Server.SetState). A real
		// client's call is cut off with the connection, as gRPC says it.
		r.answer(nil, status.Error(codes.Unavailable, "error reading from server: EOF"))
		return nil
	}
	switch msg := r.msg.(type) {
	case *pb.WatchCreateRequest:
		return f.startWatch(w, r, msg)
	case *pb.WatchCancelRequest:
		if err := f.cancelAll(w, func(t *tracked) bool { return t.r.st == r.st && t.watchID == msg.WatchId }); err != nil {
			return err
		}
		r.answer(&pb.WatchResponse{Header: w.Header(r.member, true), WatchId: msg.WatchId, Canceled: true}, nil)
		return nil
	case *pb.WatchProgressRequest:
		return f.progress(w, r)
	case *pb.MoveLeaderRequest:
		return f.moveLeader(w, r, msg)
	case *pb.DefragmentRequest:
		return f.defrag(w, r)
	}
	if resp, err, ok := immediate(w, r.member, r.msg); ok {
		r.answer(resp, err)
		return nil
	}
	cmd, finish, err := command(w, r.member, r.msg)
	if err != nil {
		r.answer(nil, err)
		return nil
	}
	cmd.Req.Token = r.token
	t := &tracked{r: r, finish: finish}
	return f.do(w, t, cmd)
}

// do applies cmd for t, sent by t's client via its member, labelled so
// that a cancel can name it.
func (f *Front) do(w *sim.World, t *tracked, cmd sim.Command) error {
	f.labels++
	t.label = fmt.Sprintf("x%d", f.labels)
	cmd.Via, cmd.By, cmd.External, cmd.Label = t.r.member, t.r.peer, true, t.label
	op, err := f.apply(w, cmd)
	if v := w.Violation(); v != nil {
		t.r.answer(nil, status.Error(codes.Internal, v.Error()+note))
		return v
	}
	if err != nil {
		t.r.answer(nil, status.Error(codes.FailedPrecondition, err.Error()+note))
		return nil
	}
	t.op = op
	f.open = append(f.open, t)
	f.deliver(w, t)
	return nil
}

func (f *Front) startWatch(w *sim.World, r *request, msg *pb.WatchCreateRequest) error {
	id := msg.WatchId
	if id == 0 {
		r.st.nextWatch++ // owner-side counter: streams are only touched here
		id = r.st.nextWatch - 1
	}
	t := &tracked{r: r, watchID: id, filters: msg.Filters}
	cmd := watchCommand(msg, r.st.requireLeader)
	cmd.Req.Token = r.token
	return f.do(w, t, cmd)
}

// cancelAll gives up on every open request that which picks.
func (f *Front) cancelAll(w *sim.World, which func(*tracked) bool) error {
	var picked []*request
	for _, t := range f.open {
		if which(t) {
			picked = append(picked, t.r)
		}
	}
	for _, r := range picked {
		if err := f.cancel(w, r); err != nil {
			return err
		}
	}
	return nil
}

// cancel gives up on r's operation, if it is still open.
func (f *Front) cancel(w *sim.World, r *request) error {
	for i, t := range f.open {
		if t.r != r {
			continue
		}
		f.open = append(f.open[:i], f.open[i+1:]...)
		if t.op == nil || t.target != "" {
			return nil
		}
		if open := t.op.Status == sim.OpPending || t.op.Kind == sim.OpWatch && t.op.Status == sim.OpOK; !open {
			return nil
		}
		if _, err := f.apply(w, sim.Command{Kind: sim.CmdCancel, Label: t.label}); err != nil {
			if v := w.Violation(); v != nil {
				return v
			}
		}
		return nil
	}
	return nil
}

// moveLeader asks the leader to hand over to the target, as etcd's
// MoveLeader does at the member it reached: only the leader may, and only
// to a voter; it answers once the target leads, or fails after the
// request timeout.
func (f *Front) moveLeader(w *sim.World, r *request, msg *pb.MoveLeaderRequest) error {
	in, _ := w.Info(r.member)
	if in.Role != sim.RoleLeader {
		r.answer(nil, rpctypes.ErrGRPCNotLeader)
		return nil
	}
	target, ok := memberByID(w, msg.TargetID)
	if e := w.CheckTransferee(target); !ok || e != "" {
		r.answer(nil, rpctypes.ErrGRPCBadLeaderTransferee)
		return nil
	}
	t := &tracked{r: r, target: target, deadline: w.Now().Add(sim.DefaultClientTimeout)}
	if target != r.member {
		if _, err := f.apply(w, sim.Command{Kind: sim.CmdTransferLeader, Node: target}); err != nil {
			r.answer(nil, status.Error(codes.FailedPrecondition, err.Error()+note))
			return nil
		}
	}
	f.open = append(f.open, t)
	f.deliver(w, t)
	return nil
}

// defrag defragments the member's database, as the console's defrag does
// (sim.CmdDefrag, logged): DB SIZE drops to IN USE. Like etcd's, it goes
// through no consensus.
func (f *Front) defrag(w *sim.World, r *request) error {
	_, err := f.apply(w, sim.Command{Kind: sim.CmdDefrag, Node: r.member})
	if v := w.Violation(); v != nil {
		r.answer(nil, status.Error(codes.Internal, v.Error()+note))
		return v
	}
	if err != nil {
		r.answer(nil, status.Error(codes.FailedPrecondition, err.Error()+note))
		return nil
	}
	r.answer(&pb.DefragmentResponse{Header: w.Header(r.member, true)}, nil)
	return nil
}

// progress sends a stream's progress request into the world, for the
// stream's watches (sim.CmdWatchProgress): the member answers it, as
// etcd's RequestProgressAll does, with the store's revision once every
// one of them is synced, or not at all. A stream with no watch is sent
// nothing, as etcd sends it nothing.
func (f *Front) progress(w *sim.World, r *request) error {
	var labels []string
	for _, t := range f.open {
		if t.r.st == r.st && t.op != nil && t.op.Kind == sim.OpWatch {
			labels = append(labels, t.label)
		}
	}
	if len(labels) == 0 {
		return nil
	}
	_, err := f.apply(w, sim.Command{Kind: sim.CmdWatchProgress, Labels: labels})
	if v := w.Violation(); v != nil {
		return v
	}
	// An error (none is expected: the watches are open, at the stream's
	// member) is answered as etcd answers a progress request it cannot
	// serve: with nothing.
	_ = err
	return nil
}

// Deliver answers every open request whose operation has ended, and sends
// watches the events their members delivered. The owner calls it after
// each advance of w.
func (f *Front) Deliver(w *sim.World) {
	f.adopt(w)
	kept := f.open[:0]
	for _, t := range f.open {
		if !f.deliver(w, t) {
			kept = append(kept, t)
		}
	}
	clear(f.open[len(kept):])
	f.open = kept
}

// adopt follows the owner onto another world (the window seeks back by
// replaying the log): open operations are found again by label, and those
// the new world never started are answered with an error.
func (f *Front) adopt(w *sim.World) {
	if f.world == w {
		return
	}
	f.world = w
	kept := f.open[:0]
	for _, t := range f.open {
		if t.op == nil {
			kept = append(kept, t)
			continue
		}
		if t.op = w.Op(t.label); t.op == nil {
			t.r.answer(nil, status.Error(codes.Aborted, "the session was rewound to before this request"+note))
			continue
		}
		kept = append(kept, t)
	}
	f.open = kept
}

// deliver sends what is new for t and reports whether t is done.
func (f *Front) deliver(w *sim.World, t *tracked) bool {
	if t.target != "" {
		if l, ok := w.Leader(); ok && l == t.target {
			t.r.answer(&pb.MoveLeaderResponse{Header: w.Header(t.r.member, true)}, nil)
			return true
		}
		if w.Now() >= t.deadline {
			t.r.answer(nil, rpctypes.ErrGRPCTimeoutDueToLeaderFail)
			return true
		}
		return false
	}
	op := t.op
	if op.Kind == sim.OpWatch {
		return f.deliverWatch(t)
	}
	switch op.Status {
	case sim.OpPending:
		return false
	case sim.OpOK:
		t.r.answer(t.finish(w, op))
	default:
		if leaseGone(op) {
			t.r.answer(&pb.LeaseKeepAliveResponse{Header: op.Header(), ID: op.Req.LeaseKeepAlive.ID}, nil)
			break
		}
		t.r.answer(nil, failed(op))
	}
	return true
}

// deliverWatch sends a watch's creation, its new events (one response per
// response of the member's), and its end.
func (f *Front) deliverWatch(t *tracked) bool {
	op, st := t.op, t.r.st
	if op.Status == sim.OpPending {
		return false
	}
	if !t.created && op.Status == sim.OpOK {
		t.created = true
		st.send(&pb.WatchResponse{Header: op.Header(), WatchId: t.watchID, Created: true}, nil)
	}
	// Progress notifications go out where they came in among the events.
	progress := func(before int) {
		for ps := op.Progress(); t.progress < len(ps) && ps[t.progress].After <= before; t.progress++ {
			p := ps[t.progress]
			id := t.watchID
			if p.All {
				id = -1 // for every watch of the stream
			}
			st.send(&pb.WatchResponse{Header: &p.Header, WatchId: id}, nil)
		}
	}
	for t.sent < len(op.Events()) {
		progress(t.sent)
		first := op.Events()[t.sent]
		resp := &pb.WatchResponse{Header: &first.Header, WatchId: t.watchID}
		for t.sent < len(op.Events()) && op.Events()[t.sent].Response == first.Response {
			if e := eventOut(&op.Events()[t.sent], t.filters); e != nil {
				resp.Events = append(resp.Events, e)
			}
			t.sent++
		}
		if len(resp.Events) > 0 {
			st.send(resp, nil)
		}
	}
	progress(len(op.Events()))
	if op.Status == sim.OpOK {
		return false
	}
	switch {
	case op.Canceled:
	case sim.WatchRefused(op):
		// etcd's isWatchPermitted refusal: created and canceled at once,
		// with no watch ID, the error as the reason.
		st.send(&pb.WatchResponse{Header: op.Header(), WatchId: -1, Created: true, Canceled: true,
			CancelReason: failed(op).Error()}, nil)
	case op.CompactRevision() > 0:
		if !t.created {
			st.send(&pb.WatchResponse{Header: op.Header(), WatchId: t.watchID, Created: true}, nil)
		}
		st.send(&pb.WatchResponse{Header: op.Header(), WatchId: t.watchID, Canceled: true,
			CompactRevision: op.CompactRevision()}, nil)
	default:
		// etcd ends the whole stream (a require-leader watch whose member
		// has lost its leader: "etcdserver: no leader").
		st.send(nil, failed(op))
	}
	return true
}
