package membership

import (
	"cmp"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"go.etcd.io/etcd/client/pkg/v3/types"
)

// CheckURLs applies etcd's rules for a member's URLs (types.NewURLs, which
// clientv3 applies before it sends a member add or update, and the server
// to a member add): each is http or https with a host:port and no path, or
// unix or unixs. Its errors are etcd's own.
func CheckURLs(urls []string) error {
	_, err := types.NewURLs(urls)
	return err
}

// ErrBadURLs is the server's answer to a member add whose URLs CheckURLs
// refuses.
var ErrBadURLs = errors.New("etcdserver: given member URLs are invalid")

// PeerMember is one member of an --initial-cluster: a name and its peer URL.
type PeerMember struct{ Name, PeerURL string }

// ParseInitialCluster reads an --initial-cluster value (NAME=URL,...), as
// etcd reads it: URLs must parse with etcd's schemes, and no URL may be
// given twice.
func ParseInitialCluster(s string) ([]PeerMember, error) {
	var out []PeerMember
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		name, u, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("invalid value %q for --initial-cluster: each member is NAME=URL", part)
		}
		if err := CheckPeerURL(u); err != nil {
			return nil, err
		}
		if seen[u] {
			return nil, fmt.Errorf("initial cluster %s has duplicate url", s)
		}
		seen[u] = true
		out = append(out, PeerMember{name, u})
	}
	return out, nil
}

// CheckPeerURL checks a URL as etcd's types.NewURLs does, with the words
// etcdutl's flags answer with.
func CheckPeerURL(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	switch p.Scheme {
	case "http", "https", "unix", "unixs":
	default:
		return fmt.Errorf("URL scheme must be http, https, unix, or unixs: %s", u)
	}
	if p.Path != "" {
		return fmt.Errorf("URL must not contain a path: %s", u)
	}
	return nil
}

// Restored is the new cluster etcdutl snapshot restore makes of its flags:
// the members of --initial-cluster, which of them is restored here, their
// member IDs (from their peer URLs and --initial-cluster-token) and the
// cluster ID.
type Restored struct {
	Peers     []PeerMember
	Self      int      // the member restored (--name) in Peers
	IDs       []uint64 // each peer's member ID
	ClusterID uint64
}

// Restore checks etcdutl snapshot restore's flags as etcdutl does, in its
// order: --initial-advertise-peer-urls (peerURL), --initial-cluster (""
// is NAME=peerURL), that it names the member restored (name) with the
// advertised URL; and computes the IDs with --initial-cluster-token (""
// is etcd's default).
func Restore(name, peerURL, initialCluster, token string) (*Restored, error) {
	if err := CheckPeerURL(peerURL); err != nil {
		return nil, err
	}
	peers, err := ParseInitialCluster(cmp.Or(initialCluster, name+"="+peerURL))
	if err != nil {
		return nil, err
	}
	self := slices.IndexFunc(peers, func(p PeerMember) bool { return p.Name == name })
	if self < 0 {
		return nil, fmt.Errorf("couldn't find local name %q in the initial cluster configuration", name)
	}
	if peers[self].PeerURL != peerURL {
		return nil, fmt.Errorf("--initial-cluster has %s=%s but missing from --initial-advertise-peer-urls=%s", name, peers[self].PeerURL, peerURL)
	}
	token = cmp.Or(token, DefaultClusterToken)
	r := &Restored{Peers: peers, Self: self, IDs: make([]uint64, len(peers))}
	for i, p := range peers {
		r.IDs[i] = MemberID([]string{p.PeerURL}, token, nil)
	}
	r.ClusterID = ClusterID(r.IDs)
	return r, nil
}
