package scenarios

import (
	"encoding/json"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"gopkg.in/yaml.v3"

	"github.com/raftsim/raftsim/server"
)

// auth reads an auth step: one of etcd's Auth service calls, as etcd
// proposes it (request: the InternalRaftRequest in JSON, with one of its
// auth_* fields: a user's password as its bcrypt hash, an authenticate
// with its token prefix; never a password), sent via a member (or a
// client), with a token (token:) and a label (as:).
func (p *parser) auth(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"via", "by", "external", "as", "token", "request"})
	if f == nil {
		return
	}
	if r, ok := p.requiredRef(f, v, what, "via", "the member (or client) the call goes to"); ok {
		st.Via = r
	}
	x := f.get("request")
	if x == nil {
		p.errorf(p.pos(v), `auth: missing request: (like '{"auth_status":{}}')`)
	} else if s, ok := p.str(x, "auth request"); ok {
		var r etcdserverpb.InternalRaftRequest
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		switch err := dec.Decode(&r); {
		case err != nil:
			p.errorf(p.pos(x), "auth request: %v; want etcd's InternalRaftRequest in JSON, like '{\"auth_user_add\":{\"name\":\"alice\",\"hashedPassword\":\"...\"}}'", err)
		case !server.IsAuthRequest(&r) || authFields(&r) != 1:
			p.errorf(p.pos(x), "auth request: want exactly one of the auth calls (auth_enable, auth_user_add, ...) and nothing else")
		default:
			st.Req.Auth = &r
		}
	}
	p.membershipCall(st, f, what)
}

// authFields counts the fields of r that are set (an auth request has
// one: its call).
func authFields(r *etcdserverpb.InternalRaftRequest) int {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return 0
	}
	return len(m)
}

// token reads a request's simple token (token:), as its gRPC metadata
// carries it.
func (p *parser) token(st *Step, f fields, what string) {
	x := f.get("token")
	if x == nil {
		return
	}
	s, ok := p.str(x, what+" token")
	if !ok {
		return
	}
	if s == "" || len(s) > 256 || strings.ContainsAny(s, "\x00\n") {
		p.errorf(p.pos(x), "%s token: want the token an authenticate answered, like AbCdEfGhIjKlMnOp.12", what)
		return
	}
	st.Req.Token = s
}

// authJSON writes an auth request as an auth step holds it.
func authJSON(r *etcdserverpb.InternalRaftRequest) (string, error) {
	b, err := json.Marshal(r)
	return string(b), err
}
