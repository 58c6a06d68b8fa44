// Package wire puts etcd's v3 gRPC API (go.etcd.io/etcd/api/v3) in front
// of the simulated cluster, one loopback endpoint per member, so that the
// real etcdctl, clientv3 programs and kube-apiserver can talk to it: the
// engine of `raftsim serve`.
//
// # Two sides
//
// The network side (Server) is gRPC's: each call runs on a goroutine of
// its own, turns into a request and is handed over a channel, then waits
// for its answer. The simulation side (Front) runs on the one goroutine
// that owns the sim.World, which stays single-threaded and goroutine-free:
//
//	f.Take(w, nil) // apply the requests that arrived, at w.Now()
//	w.RunUntil(t)  // the owner moves virtual time on
//	f.Deliver(w)   // answer what has ended, stream watch events
//
// A request enters the world as a sim.Command (External, sent By the
// client's address Via the member whose endpoint it reached), stamped with
// the virtual instant it was taken in, and is logged with the world's
// other commands. A client that gives up (its deadline passes, it closes a
// watch) becomes a cancel command at the instant that is noticed. So the
// command log of a served session replays headless, with no network, to
// the same run (scenarios.MarshalWith, `raftsim run`).
//
// Status, HashKV and Snapshot are answered at once from the member's
// state, as etcd serves them, and leave no trace in the log: they change
// nothing. Defragment and the alarm calls are the console's defrag and
// alarm verbs, through the same commands.
//
// Loop is the owner for a headless `raftsim serve`: virtual time follows
// wall time at a rate; the window (cmd/raftsim-gui) is the owner with
// --window, draining the same Front from its Update.
//
// # What the endpoints do as the simulated member does
//
// A member that is down refuses connections (its listener is closed, and
// its open connections with it); a stalled member, like a process under
// SIGSTOP, accepts TCP connections but reads and writes nothing until it
// resumes (SetState).
package wire
