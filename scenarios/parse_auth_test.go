package scenarios

import (
	"strings"
	"testing"
)

// TestParseAuthStep: an auth step takes etcd's InternalRaftRequest in
// JSON with one auth call, and any client operation a token; anything
// else is refused at its position.
func TestParseAuthStep(t *testing.T) {
	good := `name: a
cluster: {members: [n1, n2, n3]}
steps:
  - auth: {via: n1, request: '{"auth_role_add":{"name":"app"}}', as: r}
  - get: {via: n1, key: k, token: AbCdEfGhIjKlMnOp.12}
`
	s, err := Parse("good.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Steps[0].Req.Auth; a == nil || a.AuthRoleAdd == nil || a.AuthRoleAdd.Name != "app" {
		t.Fatalf("the auth step's request: %v", a)
	}
	if tok := s.Steps[1].Req.Token; tok != "AbCdEfGhIjKlMnOp.12" {
		t.Fatalf("the get's token: %q", tok)
	}
	for _, c := range []struct{ step, want string }{
		{`auth: {via: n1, request: 'nope'}`, "good.yaml:4:30: auth request: invalid character"},
		{`auth: {via: n1, request: '{"auth_role_add":{"name":"a"},"auth_enable":{}}'}`, "want exactly one of the auth calls"},
		{`auth: {via: n1, request: '{"put":{"key":"YQ=="}}'}`, "want exactly one of the auth calls"},
		{`auth: {via: n1, request: '{"auth_bogus":{}}'}`, `unknown field "auth_bogus"`},
		{`auth: {request: '{"auth_enable":{}}'}`, "auth: missing via:"},
		{`auth: {via: n1}`, "auth: missing request:"},
		{`get: {via: n1, key: k, token: ""}`, "get token: want the token"},
	} {
		bad := strings.Replace(good, `auth: {via: n1, request: '{"auth_role_add":{"name":"app"}}', as: r}`, c.step, 1)
		_, err := Parse("good.yaml", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.step, err, c.want)
		}
	}
}
