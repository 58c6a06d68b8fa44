package sim

import (
	"encoding/base64"
	"strconv"

	"github.com/raftsim/raftsim/server"
)

// etcd's auth at a member: what the server layer's auth store
// (server.AuthStore) needs of the world. An Auth service call is an
// OpAuth, proposed and applied as any write; the checks of a key-value
// request are the apply path's for writes (server.KV.Apply) and, for a
// read, the member's server layer's as it answers it
// (server.Member.ReadPermitted), as etcd's doSerialize does after the read
// index.

// WatchRefused reports whether a watch failed because auth refused it
// (server.Member.WatchPermitted), which etcd answers as a canceled watch, not an error
// of the stream.
func WatchRefused(op *Op) bool {
	if op.Kind != OpWatch || op.Status != OpError {
		return false
	}
	switch op.Err {
	case server.ErrPermissionDenied, server.ErrUserEmpty, server.ErrInvalidAuthToken, server.ErrAuthOldRevision:
		return true
	}
	return false
}

// CheckPassword is what etcd's Authenticate checks at the member that
// receives it before anything goes to raft (AuthStore.CheckPassword): ""
// when the password is the user's, else the error the client gets.
func (w *World) CheckPassword(member, user, password string) string {
	m := w.byName[member]
	if m == nil || !m.up {
		return server.ErrAuthNotEnabled
	}
	return m.srv.KV.Auth.CheckPassword(user, password)
}

// authStream is the seeded stream a salt or a token prefix is drawn from:
// one for each command of the log, so that what a command carries (a
// bcrypt hash, a token prefix) is the same in every run of the same
// session, and a replay, which finds them in the commands, draws none.
func (w *World) authStream(what string) func(n int) int {
	r := stream(w.cfg.Seed, "auth/"+what+"/"+strconv.Itoa(w.CommandCount()))
	return func(n int) int { return r.IntN(n) }
}

// HashPassword hashes a password as etcd's UserAdd and UserChangePassword
// do at the member that receives them (bcrypt at etcd's default cost),
// with a salt from the world's seeded entropy: the command carries the
// hash, base64 as etcd's raft entry does, never the password.
func (w *World) HashPassword(password string) (string, error) {
	var salt [16]byte
	draw := w.authStream("salt")
	for i := range salt {
		salt[i] = byte(draw(256))
	}
	h, err := server.HashPassword([]byte(password), server.BcryptCost, salt)
	if err != nil {
		return "", err
	}
	return base64Std(h), nil
}

// TokenPrefix draws a simple token's prefix, as etcd's Authenticate does
// before it proposes (genTokenPrefix), from the world's seeded entropy.
func (w *World) TokenPrefix() string { return server.SimpleTokenPrefix(w.authStream("token")) }

// AuthEnabled reports whether auth is enabled at the member (as it has
// applied it).
func (w *World) AuthEnabled(member string) bool {
	m := w.byName[member]
	return m != nil && m.srv.KV != nil && m.srv.KV.Auth.Enabled()
}

func base64Std(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
