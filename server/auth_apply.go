package server

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"

	"go.etcd.io/etcd/api/v3/authpb"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// The handlers of ApplyAuth, one a request kind, as etcd's authStore has
// a method each. Each answers etcd's response or the error a client sees;
// the admin check is ApplyAuth's, before them.

// applyAuthEnable is etcd's AuthEnable: it needs the root user with the
// root role.
func (as *AuthStore) applyAuthEnable() (any, string) {
	if as.enabled {
		return &etcdserverpb.AuthEnableResponse{}, ""
	}
	u := as.users[rootUser]
	if u == nil {
		return nil, errRootUserNotExist
	}
	if !hasRootRole(u) {
		return nil, errRootRoleNotExist
	}
	as.enabled = true
	return &etcdserverpb.AuthEnableResponse{}, ""
}

// applyAuthDisable is etcd's AuthDisable: the tokens go with it.
func (as *AuthStore) applyAuthDisable() (any, string) {
	if as.enabled {
		as.enabled = false
		as.revision++
		clear(as.tokens)
	}
	return &etcdserverpb.AuthDisableResponse{}, ""
}

func (as *AuthStore) applyAuthStatus() (any, string) {
	return &etcdserverpb.AuthStatusResponse{Enabled: as.enabled, AuthRevision: as.revision}, ""
}

// applyAuthenticate assigns a simple token, made unique by the raft index
// index, that expires SimpleTokenTTL after now. The password was checked
// before the request went to raft (CheckPassword).
func (as *AuthStore) applyAuthenticate(r *etcdserverpb.InternalAuthenticateRequest, index uint64, now int64) (any, string) {
	if !as.enabled {
		return nil, ErrAuthNotEnabled
	}
	u := as.users[r.Name]
	if u == nil || u.Options != nil && u.Options.NoPassword {
		return nil, ErrAuthFailed
	}
	token := r.SimpleToken + "." + strconv.FormatUint(index, 10)
	as.tokens[token] = simpleToken{user: r.Name, expires: now + SimpleTokenTTL}
	return &etcdserverpb.AuthenticateResponse{Token: token}, ""
}

func (as *AuthStore) applyUserAdd(r *etcdserverpb.AuthUserAddRequest) (any, string) {
	if r.Name == "" {
		return nil, ErrUserEmpty
	}
	if as.users[r.Name] != nil {
		return nil, errUserExists
	}
	opts := r.Options
	if opts == nil {
		opts = &authpb.UserAddOptions{}
	}
	u := &authpb.User{Name: []byte(r.Name), Options: opts}
	if !opts.NoPassword {
		pw, err := base64.StdEncoding.DecodeString(r.HashedPassword)
		if err != nil {
			return nil, errNoPasswordUser
		}
		u.Password = pw
	}
	as.users[r.Name] = u
	as.revision++
	return &etcdserverpb.AuthUserAddResponse{}, ""
}

// applyUserDelete refuses to delete root while auth is enabled.
func (as *AuthStore) applyUserDelete(r *etcdserverpb.AuthUserDeleteRequest) (any, string) {
	if as.enabled && r.Name == rootUser {
		return nil, errInvalidAuthMgmt
	}
	if as.users[r.Name] == nil {
		return nil, ErrUserNotFound
	}
	delete(as.users, r.Name)
	as.revision++
	as.invalidate(r.Name)
	return &etcdserverpb.AuthUserDeleteResponse{}, ""
}

func (as *AuthStore) applyUserChangePassword(c *etcdserverpb.AuthUserChangePasswordRequest) (any, string) {
	u := as.users[c.Name]
	if u == nil {
		return nil, ErrUserNotFound
	}
	nu := &authpb.User{Name: u.Name, Roles: u.Roles, Options: u.Options}
	if u.Options == nil || !u.Options.NoPassword {
		pw, err := base64.StdEncoding.DecodeString(c.HashedPassword)
		if err != nil {
			return nil, errNoPasswordUser
		}
		nu.Password = pw
	}
	as.users[c.Name] = nu
	as.revision++
	as.invalidate(c.Name)
	return &etcdserverpb.AuthUserChangePasswordResponse{}, ""
}

// applyUserGrantRole keeps the user's roles sorted; granting a role the
// user has already changes nothing.
func (as *AuthStore) applyUserGrantRole(g *etcdserverpb.AuthUserGrantRoleRequest) (any, string) {
	u := as.users[g.User]
	if u == nil {
		return nil, ErrUserNotFound
	}
	if g.Role != rootRole && as.roles[g.Role] == nil {
		return nil, ErrRoleNotFound
	}
	i, ok := slices.BinarySearch(u.Roles, g.Role)
	if ok {
		return &etcdserverpb.AuthUserGrantRoleResponse{}, ""
	}
	nu := *u
	nu.Roles = slices.Insert(slices.Clone(u.Roles), i, g.Role)
	as.users[g.User] = &nu
	as.revision++
	return &etcdserverpb.AuthUserGrantRoleResponse{}, ""
}

// applyUserRevokeRole refuses to take the root role from root while auth
// is enabled.
func (as *AuthStore) applyUserRevokeRole(g *etcdserverpb.AuthUserRevokeRoleRequest) (any, string) {
	if as.enabled && g.Name == rootUser && g.Role == rootRole {
		return nil, errInvalidAuthMgmt
	}
	u := as.users[g.Name]
	if u == nil {
		return nil, ErrUserNotFound
	}
	i, ok := slices.BinarySearch(u.Roles, g.Role)
	if !ok {
		return nil, errRoleNotGranted
	}
	nu := *u
	nu.Roles = slices.Delete(slices.Clone(u.Roles), i, i+1)
	as.users[g.Name] = &nu
	as.revision++
	return &etcdserverpb.AuthUserRevokeRoleResponse{}, ""
}

// applyUserGet lets a user who is not an admin get itself.
func (as *AuthStore) applyUserGet(ai *AuthInfo, r *etcdserverpb.AuthUserGetRequest) (any, string) {
	if e := as.IsAdminPermitted(ai); e != "" && r.Name != ai.Username {
		return nil, e
	}
	u := as.users[r.Name]
	if u == nil {
		return nil, ErrUserNotFound
	}
	return &etcdserverpb.AuthUserGetResponse{Roles: slices.Clone(u.Roles)}, ""
}

func (as *AuthStore) applyUserList() (any, string) {
	return &etcdserverpb.AuthUserListResponse{Users: sortedKeys(as.users)}, ""
}

func (as *AuthStore) applyRoleAdd(r *etcdserverpb.AuthRoleAddRequest) (any, string) {
	if r.Name == "" {
		return nil, errRoleEmpty
	}
	if as.roles[r.Name] != nil {
		return nil, errRoleExists
	}
	as.roles[r.Name] = &authpb.Role{Name: []byte(r.Name)}
	as.revision++
	return &etcdserverpb.AuthRoleAddResponse{}, ""
}

// applyRoleDelete refuses to delete the root role while auth is enabled,
// and revokes the role from every user who has it.
func (as *AuthStore) applyRoleDelete(r *etcdserverpb.AuthRoleDeleteRequest) (any, string) {
	name := r.Role
	if as.enabled && name == rootRole {
		return nil, errInvalidAuthMgmt
	}
	if as.roles[name] == nil {
		return nil, ErrRoleNotFound
	}
	delete(as.roles, name)
	for _, un := range sortedKeys(as.users) {
		u := as.users[un]
		if i, ok := slices.BinarySearch(u.Roles, name); ok {
			nu := *u
			nu.Roles = slices.Delete(slices.Clone(u.Roles), i, i+1)
			as.users[un] = &nu
		}
	}
	as.revision++
	return &etcdserverpb.AuthRoleDeleteResponse{}, ""
}

// applyRoleGet lets a user who is not an admin get a role it has. The
// root role answers its one permission, the whole key space.
func (as *AuthStore) applyRoleGet(ai *AuthInfo, r *etcdserverpb.AuthRoleGetRequest) (any, string) {
	name := r.Role
	if e := as.IsAdminPermitted(ai); e != "" && !as.hasRole(ai.Username, name) {
		return nil, e
	}
	role := as.roles[name]
	if role == nil {
		return nil, ErrRoleNotFound
	}
	resp := &etcdserverpb.AuthRoleGetResponse{}
	if name == rootRole {
		p := rootPerm
		resp.Perm = []*authpb.Permission{&p}
	} else {
		for _, p := range role.KeyPermission {
			c := *p
			resp.Perm = append(resp.Perm, &c)
		}
	}
	return resp, ""
}

func (as *AuthStore) applyRoleList() (any, string) {
	return &etcdserverpb.AuthRoleListResponse{Roles: sortedKeys(as.roles)}, ""
}

// applyRoleGrantPermission keeps a role's permissions sorted by key;
// granting a range the role has already changes its type.
func (as *AuthStore) applyRoleGrantPermission(r *etcdserverpb.AuthRoleGrantPermissionRequest) (any, string) {
	if r.Perm == nil {
		return nil, errPermNotGiven
	}
	if !validPermRange(r.Perm.Key, r.Perm.RangeEnd) {
		return nil, errInvalidAuthMgmt
	}
	role := as.roles[r.Name]
	if role == nil {
		return nil, ErrRoleNotFound
	}
	nr := &authpb.Role{Name: role.Name}
	for _, p := range role.KeyPermission {
		c := *p
		nr.KeyPermission = append(nr.KeyPermission, &c)
	}
	i, _ := slices.BinarySearchFunc(nr.KeyPermission, r.Perm.Key, func(p *authpb.Permission, k []byte) int { return bytes.Compare(p.Key, k) })
	if i < len(nr.KeyPermission) && bytes.Equal(nr.KeyPermission[i].Key, r.Perm.Key) && bytes.Equal(nr.KeyPermission[i].RangeEnd, r.Perm.RangeEnd) {
		nr.KeyPermission[i].PermType = r.Perm.PermType
	} else {
		nr.KeyPermission = append(nr.KeyPermission, &authpb.Permission{Key: r.Perm.Key, RangeEnd: r.Perm.RangeEnd, PermType: r.Perm.PermType})
		slices.SortStableFunc(nr.KeyPermission, func(a, b *authpb.Permission) int { return bytes.Compare(a.Key, b.Key) })
	}
	as.roles[r.Name] = nr
	as.revision++
	return &etcdserverpb.AuthRoleGrantPermissionResponse{}, ""
}

// applyRoleRevokePermission removes the permission of exactly g's range.
func (as *AuthStore) applyRoleRevokePermission(g *etcdserverpb.AuthRoleRevokePermissionRequest) (any, string) {
	role := as.roles[g.Role]
	if role == nil {
		return nil, ErrRoleNotFound
	}
	nr := &authpb.Role{Name: role.Name}
	for _, p := range role.KeyPermission {
		if !bytes.Equal(p.Key, g.Key) || !bytes.Equal(p.RangeEnd, g.RangeEnd) {
			nr.KeyPermission = append(nr.KeyPermission, p)
		}
	}
	if len(nr.KeyPermission) == len(role.KeyPermission) {
		return nil, errPermNotGranted
	}
	as.roles[g.Role] = nr
	as.revision++
	return &etcdserverpb.AuthRoleRevokePermissionResponse{}, ""
}
