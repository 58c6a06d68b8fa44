package wire

import (
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/raftsim/raftsim/sim"
)

// Plan says where each member of a served cluster listens, and with which
// certificates.
type Plan struct {
	Endpoints []Endpoint
	// URLs are the members' client URLs, as they advertise them (member
	// list) and as clients dial them.
	URLs []string
	TLS  *TLSFiles // nil: plain gRPC
}

// DefaultPort is where the first member listens unless the cluster gives
// its members loopback client URLs of their own: etcd's client port. The
// next members take the ports after it.
const DefaultPort = 2379

// ClientURLError is a member's client URL (cluster: client_urls) that
// serve cannot listen on: serve listens on this machine's loopback only.
type ClientURLError struct{ Member, URL string }

func (e *ClientURLError) Error() string {
	return fmt.Sprintf("client_urls: %s's %s is not a loopback address with a port: raftsim serve listens on this machine only (give one like http://127.0.0.1:2379, or leave it out)", e.Member, e.URL)
}

// PlanEndpoints decides where the bootstrap members of cfg listen, and
// makes cfg advertise it: a member whose client URL (cluster: client_urls)
// is given listens there, which must be a loopback address with a port
// (else a *ClientURLError); every other one on 127.0.0.1, port basePort,
// basePort+1, ... in member order. With tlsDir, it writes
// (or reuses) kubeadm's certificates there, and the URLs are https.
func PlanEndpoints(cfg *sim.Config, basePort int, tlsDir string) (*Plan, error) {
	for _, m := range cfg.Members {
		if u, ok := cfg.ClientURLs[m]; ok {
			if _, ok := loopback(u); !ok {
				return nil, &ClientURLError{Member: m, URL: u}
			}
		}
	}
	p := &Plan{}
	if tlsDir != "" {
		f, err := WriteCerts(tlsDir, cfg.Members)
		if err != nil {
			return nil, fmt.Errorf("--tls %s: %w", tlsDir, err)
		}
		p.TLS = f
	}
	scheme := "http"
	if p.TLS != nil {
		scheme = "https"
	}
	urls := map[string]string{}
	for m, u := range cfg.ClientURLs {
		urls[m] = u
	}
	for i, m := range cfg.Members {
		addr, ok := loopback(cfg.ClientURLs[m])
		if !ok {
			addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(basePort+i))
		}
		ep := Endpoint{Member: m, Addr: addr}
		if p.TLS != nil {
			c, err := p.TLS.ServerTLS(m)
			if err != nil {
				return nil, err
			}
			ep.TLS = c
		}
		u := scheme + "://" + addr
		urls[m] = u
		p.Endpoints = append(p.Endpoints, ep)
		p.URLs = append(p.URLs, u)
	}
	cfg.ClientURLs = urls
	return p, nil
}

// loopback returns the host:port of a client URL on a loopback address.
func loopback(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Port() == "" {
		return "", false
	}
	h := u.Hostname()
	if ip := net.ParseIP(h); h != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", false
	}
	return u.Host, true
}

// Addresses returns the members' host:port, comma-separated, as etcdctl's
// --endpoints takes them.
func (p *Plan) Addresses() string {
	var eps []string
	for _, ep := range p.Endpoints {
		eps = append(eps, ep.Addr)
	}
	return strings.Join(eps, ",")
}

// EtcdctlFlags are the flags that point etcdctl at the cluster.
func (p *Plan) EtcdctlFlags() string {
	s := "--endpoints=" + strings.Join(p.URLs, ",")
	if p.TLS != nil {
		s += " --cacert=" + p.TLS.CA + " --cert=" + p.TLS.ClientCert + " --key=" + p.TLS.ClientKey
	}
	return s
}

// Describe prints where each member listens, and how to point etcdctl and
// kube-apiserver at the cluster.
func (p *Plan) Describe(out io.Writer) {
	for i, ep := range p.Endpoints {
		fmt.Fprintf(out, "%s serves etcd's API at %s\n", ep.Member, p.URLs[i])
	}
	fmt.Fprintf(out, "etcdctl %s member list\n", p.EtcdctlFlags())
	if p.TLS != nil {
		fmt.Fprintf(out, "client certificates are required (as kubeadm's etcd): kube-apiserver --etcd-servers=%s --etcd-cafile=%s --etcd-certfile=%s --etcd-keyfile=%s\n",
			strings.Join(p.URLs, ","), p.TLS.CA, p.TLS.ClientCert, p.TLS.ClientKey)
	} else {
		fmt.Fprintf(out, "kube-apiserver --etcd-servers=%s\n", strings.Join(p.URLs, ","))
	}
}
