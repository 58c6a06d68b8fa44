package sim

import (
	"fmt"
	"net/url"
	"slices"
)

// errConnBroken is gRPC's error for a call whose connection broke (its
// server went down): grpc-go's internal/transport/http2_client.go
// ("error reading from server: %v", io.EOF), with codes.Unavailable.
const errConnBroken = "rpc error: code = Unavailable desc = error reading from server: EOF"

// connRefused is gRPC's error for a call to a server that refuses the
// connection: the dial's error (transport/http2_client.go, "transport:
// Error while dialing: %v") in a ConnectionError (transport.go,
// "connection error: desc = %q"), with codes.Unavailable.
func connRefused(clientURL string) string {
	hostPort := clientURL
	if u, err := url.Parse(clientURL); err == nil && u.Host != "" {
		hostPort = u.Host
	}
	return `rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp ` +
		hostPort + `: connect: connection refused"`
}

// A client on a member's host dies with the host: a stacked kube-apiserver
// (bound to the member of its host) and a member's local client (a
// request "via" the member, sent by nobody else). A crash in raftsim is
// the host's failure (the window draws the host and all on it down), so
// such a client sends nothing while its host is down: a request from it
// is refused before it exists, with raftsim's own note (ErrHostDown),
// never with an error etcd or gRPC would print.

// ErrHostDownNote is raftsim's own note for a request from a client on a
// host that is down (not a text etcd, gRPC or clientv3 prints).
const ErrHostDownNote = "%s runs on %s's host, which is down: it sends nothing (raftsim's note)"

// hostOf returns the member on whose host the client of a request runs,
// or nil for a client that runs elsewhere: via is the member a request is
// sent through (0: none), client its client.
func (w *World) hostOf(client string, via uint64, by string, external bool) *member {
	if external || by != "" {
		return nil // the operator's etcdctl, or a real client of the wire
	}
	if via != 0 {
		return w.members[via-1]
	}
	c := w.client(client)
	if c == nil || w.cfg.Topology != "stacked" || len(c.endpoints) != 1 ||
		slices.ContainsFunc(w.cfg.Clients, func(cc ClientConfig) bool { return cc.Name == client }) {
		return nil
	}
	return w.members[c.endpoints[0]-1]
}

// hostDown returns the error for a request from a client whose host is
// down, or nil.
func (w *World) hostDown(client string, via uint64, by string, external bool) error {
	m := w.hostOf(client, via, by, external)
	if m == nil || m.up || m.removed {
		return nil
	}
	name := client
	if name == m.name {
		name = m.name + "'s local client"
	}
	return fmt.Errorf(ErrHostDownNote, name, m.name)
}
