package server

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/etcd/api/v3/authpb"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc/status"
)

// AuthStore is a member's auth store, as etcd v3.6's server/auth
// (store.go, range_perm_cache.go, simple_token.go) keeps it: users with
// their bcrypt hashes and roles, roles with their key-range permissions,
// whether auth is enabled, the auth revision (each change adds one), and
// the simple tokens (--auth-token simple, etcd's default) it assigned.
// Every change comes through raft (an InternalRaftRequest's Auth* field),
// so every member holds the same store; the tokens are the member's own
// memory, as etcd's, and are lost when it restarts and applies its log
// again.
type AuthStore struct {
	enabled  bool
	revision uint64
	users    map[string]*authpb.User
	roles    map[string]*authpb.Role
	tokens   map[string]simpleToken
}

// simpleToken is a token's user and when it expires (the member's clock,
// ns): etcd's simpleTokenTTLKeeper, whose TTL each use renews.
type simpleToken struct {
	user    string
	expires int64
}

// SimpleTokenTTL is etcd's --auth-token-ttl default: 300s (ns).
const SimpleTokenTTL = int64(300e9)

// simpleTokenLetters and simpleTokenLength are etcd's simple token
// prefix: 16 letters.
const (
	simpleTokenLetters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	simpleTokenLength  = 16
)

// SimpleTokenPrefix makes etcd's simple token prefix (genTokenPrefix)
// from draw, which answers a number in [0, n): the caller's seeded
// entropy, where etcd's is crypto/rand.
func SimpleTokenPrefix(draw func(n int) int) string {
	b := make([]byte, simpleTokenLength)
	for i := range b {
		b[i] = simpleTokenLetters[draw(len(simpleTokenLetters))]
	}
	return string(b)
}

// AuthInfo is who a request comes from: the user its token names and the
// auth revision the member had when it resolved it (etcd's auth.AuthInfo).
type AuthInfo struct {
	Username string
	Revision uint64
}

// The root user and role.
const (
	rootUser = "root"
	rootRole = "root"
)

// rootPerm is what etcd's RoleGet answers for the root role.
var rootPerm = authpb.Permission{PermType: authpb.READWRITE, Key: []byte{}, RangeEnd: []byte{0}}

// grpcMsg is the message etcd's gRPC layer answers an error with.
func grpcMsg(err error) string { return status.Convert(err).Message() }

// The auth errors, as a client sees them (rpctypes).
var (
	ErrPermissionDenied = grpcMsg(rpctypes.ErrGRPCPermissionDenied)
	ErrUserEmpty        = grpcMsg(rpctypes.ErrGRPCUserEmpty)
	ErrAuthNotEnabled   = grpcMsg(rpctypes.ErrGRPCAuthNotEnabled)
	ErrAuthFailed       = grpcMsg(rpctypes.ErrGRPCAuthFailed)
	ErrInvalidAuthToken = grpcMsg(rpctypes.ErrGRPCInvalidAuthToken)
	ErrAuthOldRevision  = grpcMsg(rpctypes.ErrGRPCAuthOldRevision)
	ErrUserNotFound     = grpcMsg(rpctypes.ErrGRPCUserNotFound)
	ErrRoleNotFound     = grpcMsg(rpctypes.ErrGRPCRoleNotFound)
	errRootUserNotExist = grpcMsg(rpctypes.ErrGRPCRootUserNotExist)
	errRootRoleNotExist = grpcMsg(rpctypes.ErrGRPCRootRoleNotExist)
	errUserExists       = grpcMsg(rpctypes.ErrGRPCUserAlreadyExist)
	errRoleExists       = grpcMsg(rpctypes.ErrGRPCRoleAlreadyExist)
	errRoleEmpty        = grpcMsg(rpctypes.ErrGRPCRoleEmpty)
	errPermNotGiven     = grpcMsg(rpctypes.ErrGRPCPermissionNotGiven)
	errRoleNotGranted   = grpcMsg(rpctypes.ErrGRPCRoleNotGranted)
	errPermNotGranted   = grpcMsg(rpctypes.ErrGRPCPermissionNotGranted)
	errInvalidAuthMgmt  = grpcMsg(rpctypes.ErrGRPCInvalidAuthMgmt)
	// etcd's selectPassword fails on a hash that is not base64 with
	// ErrNoPasswordUser, which togRPCError does not map: gRPC Unknown.
	errNoPasswordUser = "auth: authentication failed, password was given for no password user"
)

// NewAuthStore returns an empty store at auth revision 1 (etcd's
// NewAuthStore commits the first revision).
func NewAuthStore() *AuthStore {
	return &AuthStore{revision: 1, users: map[string]*authpb.User{}, roles: map[string]*authpb.Role{}, tokens: map[string]simpleToken{}}
}

// Enabled reports whether auth is enabled.
func (as *AuthStore) Enabled() bool { return as != nil && as.enabled }

// Revision is the auth revision.
func (as *AuthStore) Revision() uint64 { return as.revision }

// IsAuthRequest reports whether r is one of the Auth service's requests.
func IsAuthRequest(r *etcdserverpb.InternalRaftRequest) bool {
	return r.AuthEnable != nil || r.AuthDisable != nil || r.AuthStatus != nil || r.Authenticate != nil ||
		r.AuthUserAdd != nil || r.AuthUserDelete != nil || r.AuthUserGet != nil || r.AuthUserChangePassword != nil ||
		r.AuthUserGrantRole != nil || r.AuthUserRevokeRole != nil || r.AuthUserList != nil || r.AuthRoleList != nil ||
		r.AuthRoleAdd != nil || r.AuthRoleDelete != nil || r.AuthRoleGet != nil || r.AuthRoleGrantPermission != nil ||
		r.AuthRoleRevokePermission != nil
}

// needAdmin is etcd's needAdminPermission: every auth request but
// Authenticate, UserGet and RoleGet needs the root role.
func needAdmin(r *etcdserverpb.InternalRaftRequest) bool {
	return IsAuthRequest(r) && r.Authenticate == nil && r.AuthUserGet == nil && r.AuthRoleGet == nil
}

// Info resolves a request's token at the member (etcd's AuthInfoFromCtx):
// none while auth is disabled or the request carries no token; an unknown
// or expired token is ErrInvalidAuthToken. A token used is renewed; now
// is the member's clock (ns).
func (as *AuthStore) Info(token string, now int64) (*AuthInfo, string) {
	if !as.Enabled() || token == "" {
		return nil, ""
	}
	token = strings.TrimPrefix(token, "Bearer ")
	t, ok := as.tokens[token]
	if !ok || now > t.expires {
		delete(as.tokens, token)
		return nil, ErrInvalidAuthToken
	}
	t.expires = now + SimpleTokenTTL
	as.tokens[token] = t
	return &AuthInfo{Username: t.user, Revision: as.revision}, ""
}

// CheckPassword is etcd's CheckPassword, done at the member that receives
// an Authenticate before anything goes to raft: the password against the
// user's bcrypt hash.
func (as *AuthStore) CheckPassword(name, password string) string {
	if !as.Enabled() {
		return ErrAuthNotEnabled
	}
	u := as.users[name]
	if u == nil {
		return ErrAuthFailed
	}
	if u.Options != nil && u.Options.NoPassword {
		return errNoPasswordUser
	}
	if bcrypt.CompareHashAndPassword(u.Password, []byte(password)) != nil {
		return ErrAuthFailed
	}
	return ""
}

func hasRootRole(u *authpb.User) bool {
	i, ok := slices.BinarySearch(u.Roles, rootRole)
	return ok && i < len(u.Roles)
}

// permitted is etcd's isOpPermitted: the user's roles' permissions of the
// type cover the key (end empty) or the range [key, end).
func (as *AuthStore) permitted(ai *AuthInfo, key, end []byte, write bool) string {
	if !as.Enabled() {
		return ""
	}
	if ai == nil || ai.Revision == 0 {
		return ErrUserEmpty
	}
	if ai.Revision < as.revision {
		return ErrAuthOldRevision
	}
	u := as.users[ai.Username]
	if u == nil {
		return ErrPermissionDenied
	}
	if hasRootRole(u) || as.covered(u, key, end, write) {
		return ""
	}
	return ErrPermissionDenied
}

// interval is a half-open key interval [begin, end); end nil is no end.
type interval struct{ begin, end []byte }

// covered reports whether the user's permissions of the type cover the
// key, or every key of [key, end): etcd's interval trees of
// range_perm_cache.go (a permission with no range end is the key alone,
// a range end "\x00" is every key from the key on).
func (as *AuthStore) covered(u *authpb.User, key, end []byte, write bool) bool {
	var ivs []interval
	for _, name := range u.Roles {
		r := as.roles[name]
		if r == nil {
			continue
		}
		for _, p := range r.KeyPermission {
			ok := p.PermType == authpb.READWRITE || (p.PermType == authpb.WRITE) == write
			if !ok {
				continue
			}
			iv := interval{p.Key, p.RangeEnd}
			switch {
			case len(p.RangeEnd) == 0:
				iv.end = append(append([]byte(nil), p.Key...), 0)
			case len(p.RangeEnd) == 1 && p.RangeEnd[0] == 0:
				iv.end = nil
			}
			ivs = append(ivs, iv)
		}
	}
	// below: a < b, where b nil is no end.
	below := func(a, b []byte) bool { return b == nil || bytes.Compare(a, b) < 0 }
	if len(end) == 0 {
		for _, iv := range ivs {
			if bytes.Compare(iv.begin, key) <= 0 && below(key, iv.end) {
				return true
			}
		}
		return false
	}
	if len(end) == 1 && end[0] == 0 {
		end = nil
	}
	for cur := key; ; {
		// The farthest end of the intervals holding cur.
		var reach []byte
		found := false
		for _, iv := range ivs {
			if bytes.Compare(iv.begin, cur) > 0 || !below(cur, iv.end) {
				continue
			}
			if !found || reach != nil && (iv.end == nil || bytes.Compare(iv.end, reach) > 0) {
				reach, found = iv.end, true
			}
		}
		switch {
		case !found:
			return false
		case reach == nil:
			return true
		case end != nil && bytes.Compare(reach, end) >= 0:
			return true
		}
		cur = reach
	}
}

// IsAdminPermitted is etcd's IsAdminPermitted: the user has the root role.
func (as *AuthStore) IsAdminPermitted(ai *AuthInfo) string {
	if !as.Enabled() {
		return ""
	}
	if ai == nil || ai.Username == "" {
		return ErrUserEmpty
	}
	u := as.users[ai.Username]
	if u == nil {
		return ErrUserNotFound
	}
	if !hasRootRole(u) {
		return ErrPermissionDenied
	}
	return ""
}

// IsRangePermitted is etcd's IsRangePermitted.
func (as *AuthStore) IsRangePermitted(ai *AuthInfo, key, end []byte) string {
	return as.permitted(ai, key, end, false)
}

// IsPutPermitted is etcd's IsPutPermitted (with the read permission a
// --prev-kv needs, as checkPutAuth asks it).
func (as *AuthStore) IsPutPermitted(ai *AuthInfo, r *etcdserverpb.PutRequest) string {
	if e := as.permitted(ai, r.Key, nil, true); e != "" {
		return e
	}
	if r.PrevKv {
		return as.permitted(ai, r.Key, nil, false)
	}
	return ""
}

// IsDeletePermitted is etcd's IsDeleteRangePermitted (and the read a
// --prev-kv needs).
func (as *AuthStore) IsDeletePermitted(ai *AuthInfo, r *etcdserverpb.DeleteRangeRequest) string {
	if e := as.permitted(ai, r.Key, r.RangeEnd, true); e != "" {
		return e
	}
	if r.PrevKv {
		return as.permitted(ai, r.Key, r.RangeEnd, false)
	}
	return ""
}

// IsTxnPermitted is etcd's checkTxnPermission: every compare's range
// readable, every operation permitted, nested transactions too.
func (as *AuthStore) IsTxnPermitted(ai *AuthInfo, r *etcdserverpb.TxnRequest) string {
	if !as.Enabled() {
		return ""
	}
	for _, c := range r.Compare {
		if e := as.IsRangePermitted(ai, c.Key, c.RangeEnd); e != "" {
			return e
		}
	}
	for _, ops := range [][]*etcdserverpb.RequestOp{r.Success, r.Failure} {
		for _, o := range ops {
			var e string
			switch u := o.Request.(type) {
			case *etcdserverpb.RequestOp_RequestRange:
				e = as.IsRangePermitted(ai, u.RequestRange.Key, u.RequestRange.RangeEnd)
			case *etcdserverpb.RequestOp_RequestPut:
				e = as.IsPutPermitted(ai, u.RequestPut)
			case *etcdserverpb.RequestOp_RequestDeleteRange:
				e = as.IsDeletePermitted(ai, u.RequestDeleteRange)
			case *etcdserverpb.RequestOp_RequestTxn:
				e = as.IsTxnPermitted(ai, u.RequestTxn)
			}
			if e != "" {
				return e
			}
		}
	}
	return ""
}

// IsLeasePermitted is etcd's checkLeasePutsKeys: a lease's keys may all be
// written by the user (or the user is root).
func (as *AuthStore) IsLeasePermitted(ai *AuthInfo, keys []string) string {
	if !as.Enabled() || as.IsAdminPermitted(ai) == "" {
		return ""
	}
	for _, k := range keys {
		if e := as.permitted(ai, []byte(k), nil, true); e != "" {
			return e
		}
	}
	return ""
}

// headerInfo is the AuthInfo a proposal's header carries.
func headerInfo(h *etcdserverpb.RequestHeader) *AuthInfo {
	if h == nil {
		return &AuthInfo{}
	}
	return &AuthInfo{Username: h.Username, Revision: h.AuthRevision}
}

// ApplyAuth applies an auth request committed at raft index index, at the
// member's clock now (ns), as etcd's authApplierV3 and authStore do: the
// admin check of the header's user, then the change. It answers etcd's
// response (one of the Auth*Response types, its header left to the
// caller) or the error a client sees.
func (as *AuthStore) ApplyAuth(r *etcdserverpb.InternalRaftRequest, index uint64, now int64) (any, string) {
	ai := headerInfo(r.Header)
	if needAdmin(r) {
		if e := as.IsAdminPermitted(ai); e != "" {
			return nil, e
		}
	}
	switch {
	case r.AuthEnable != nil:
		return as.applyAuthEnable()
	case r.AuthDisable != nil:
		return as.applyAuthDisable()
	case r.AuthStatus != nil:
		return as.applyAuthStatus()
	case r.Authenticate != nil:
		return as.applyAuthenticate(r.Authenticate, index, now)
	case r.AuthUserAdd != nil:
		return as.applyUserAdd(r.AuthUserAdd)
	case r.AuthUserDelete != nil:
		return as.applyUserDelete(r.AuthUserDelete)
	case r.AuthUserChangePassword != nil:
		return as.applyUserChangePassword(r.AuthUserChangePassword)
	case r.AuthUserGrantRole != nil:
		return as.applyUserGrantRole(r.AuthUserGrantRole)
	case r.AuthUserRevokeRole != nil:
		return as.applyUserRevokeRole(r.AuthUserRevokeRole)
	case r.AuthUserGet != nil:
		return as.applyUserGet(ai, r.AuthUserGet)
	case r.AuthUserList != nil:
		return as.applyUserList()
	case r.AuthRoleAdd != nil:
		return as.applyRoleAdd(r.AuthRoleAdd)
	case r.AuthRoleDelete != nil:
		return as.applyRoleDelete(r.AuthRoleDelete)
	case r.AuthRoleGet != nil:
		return as.applyRoleGet(ai, r.AuthRoleGet)
	case r.AuthRoleList != nil:
		return as.applyRoleList()
	case r.AuthRoleGrantPermission != nil:
		return as.applyRoleGrantPermission(r.AuthRoleGrantPermission)
	case r.AuthRoleRevokePermission != nil:
		return as.applyRoleRevokePermission(r.AuthRoleRevokePermission)
	}
	return nil, fmt.Sprintf("raftsim: not an auth request: %v", r)
}

// validPermRange is etcd's isValidPermissionRange.
func validPermRange(key, end []byte) bool {
	if len(key) == 0 {
		return false
	}
	if len(end) == 0 || bytes.Compare(key, end) < 0 {
		return true
	}
	return len(end) == 1 && end[0] == 0
}

func (as *AuthStore) hasRole(user, role string) bool {
	u := as.users[user]
	return u != nil && slices.Contains(u.Roles, role)
}

// invalidate drops the user's tokens (etcd's invalidateUser).
func (as *AuthStore) invalidate(user string) {
	for _, t := range sortedKeys(as.tokens) {
		if as.tokens[t].user == user {
			delete(as.tokens, t)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Empty reports whether the store is as NewAuthStore made it.
func (as *AuthStore) Empty() bool {
	return as == nil || !as.enabled && as.revision == 1 && len(as.users) == 0 && len(as.roles) == 0
}

// Encode writes the store for a snapshot (etcd keeps it in the backend's
// auth, authUsers and authRoles buckets): enabled, the revision, the users
// and the roles in name order. The tokens are memory only, as etcd's.
func (as *AuthStore) Encode() []byte {
	var b []byte
	if as.enabled {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, as.revision)
	b = binary.AppendUvarint(b, uint64(len(as.users)))
	for _, n := range sortedKeys(as.users) {
		m, _ := as.users[n].Marshal()
		b = binary.AppendUvarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	b = binary.AppendUvarint(b, uint64(len(as.roles)))
	for _, n := range sortedKeys(as.roles) {
		m, _ := as.roles[n].Marshal()
		b = binary.AppendUvarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	return b
}

// DecodeAuthStore rebuilds a store from Encode's bytes.
func DecodeAuthStore(b []byte) (*AuthStore, error) {
	as := NewAuthStore()
	if len(b) < 1 {
		return nil, ErrCorrupt
	}
	as.enabled, b = b[0] == 1, b[1:]
	next := func() (uint64, bool) {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return 0, false
		}
		b = b[k:]
		return v, true
	}
	var ok bool
	if as.revision, ok = next(); !ok {
		return nil, ErrCorrupt
	}
	for _, users := range []bool{true, false} {
		n, ok := next()
		if !ok || n > uint64(len(b)) {
			return nil, ErrCorrupt
		}
		for range n {
			l, ok := next()
			if !ok || l > uint64(len(b)) {
				return nil, ErrCorrupt
			}
			m := b[:l]
			b = b[l:]
			if users {
				u := &authpb.User{}
				if u.Unmarshal(m) != nil {
					return nil, ErrCorrupt
				}
				as.users[string(u.Name)] = u
			} else {
				r := &authpb.Role{}
				if r.Unmarshal(m) != nil {
					return nil, ErrCorrupt
				}
				as.roles[string(r.Name)] = r
			}
		}
	}
	if len(b) != 0 {
		return nil, ErrCorrupt
	}
	return as, nil
}

// DescribeAuth says what an auth request asks, in etcdctl's words (a
// password never: the request holds its hash at most).
func DescribeAuth(r *etcdserverpb.InternalRaftRequest) string {
	switch {
	case r == nil:
		return "?"
	case r.AuthEnable != nil:
		return "auth enable"
	case r.AuthDisable != nil:
		return "auth disable"
	case r.AuthStatus != nil:
		return "auth status"
	case r.Authenticate != nil:
		return "authenticate " + r.Authenticate.Name
	case r.AuthUserAdd != nil:
		return "user add " + r.AuthUserAdd.Name
	case r.AuthUserDelete != nil:
		return "user delete " + r.AuthUserDelete.Name
	case r.AuthUserGet != nil:
		return "user get " + r.AuthUserGet.Name
	case r.AuthUserChangePassword != nil:
		return "user passwd " + r.AuthUserChangePassword.Name
	case r.AuthUserGrantRole != nil:
		return "user grant-role " + r.AuthUserGrantRole.User + " " + r.AuthUserGrantRole.Role
	case r.AuthUserRevokeRole != nil:
		return "user revoke-role " + r.AuthUserRevokeRole.Name + " " + r.AuthUserRevokeRole.Role
	case r.AuthUserList != nil:
		return "user list"
	case r.AuthRoleAdd != nil:
		return "role add " + r.AuthRoleAdd.Name
	case r.AuthRoleDelete != nil:
		return "role delete " + r.AuthRoleDelete.Role
	case r.AuthRoleGet != nil:
		return "role get " + r.AuthRoleGet.Role
	case r.AuthRoleList != nil:
		return "role list"
	case r.AuthRoleGrantPermission != nil:
		g := r.AuthRoleGrantPermission
		if g.Perm == nil {
			return "role grant-permission " + g.Name
		}
		return fmt.Sprintf("role grant-permission %s %s %q %q", g.Name, g.Perm.PermType, g.Perm.Key, g.Perm.RangeEnd)
	case r.AuthRoleRevokePermission != nil:
		g := r.AuthRoleRevokePermission
		return fmt.Sprintf("role revoke-permission %s %q %q", g.Role, g.Key, g.RangeEnd)
	}
	return "?"
}
