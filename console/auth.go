package console

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/authpb"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/status"

	"github.com/raftsim/raftsim/server"
	"github.com/raftsim/raftsim/sim"
)

// etcdctl's auth verbs (user, role, auth) and its global --user: every
// Auth call goes through raft as etcd v3.6 sends them (server/auth.go).
// A password typed at the console is hashed by the member's side with a
// salt from the world's seeded entropy (sim.World.HashPassword) and only
// the hash goes into the command log; --user's password is checked at the
// member (sim.World.CheckPassword) and the command log holds the
// Authenticate's name and token, never the password.

// takeUser takes etcdctl's global --user NAME[:PASSWORD] out of args.
func takeUser(args []string) (rest []string, user string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--user":
			if i+1 >= len(args) {
				return nil, "", fmt.Errorf("flag needs an argument: --user")
			}
			user = args[i+1]
			i++
		case strings.HasPrefix(a, "--user="):
			user = strings.TrimPrefix(a, "--user=")
		default:
			rest = append(rest, a)
		}
	}
	return rest, user, nil
}

// authCall issues one Auth call as etcdctl does (through raft, via the
// endpoint), printing show's words for its answer.
func (c *Console) authCall(f *flags, r *etcdserverpb.InternalRaftRequest, show func(resp any) string) error {
	return c.memberCall(f, sim.Command{Kind: sim.CmdAuth, Req: server.Request{Auth: r}}, func(op *sim.Op) string {
		return show(op.Resp.Auth)
	})
}

// asUser runs a request for the console's --user, as clientv3 does: it
// authenticates first (the password checked at the member, then an
// Authenticate through raft), then sends the request with the token; a
// cluster whose auth is disabled answers the Authenticate "authentication
// is not enabled", and the request goes without a token.
func (c *Console) asUser(cmd sim.Command, bg bool, show, fail func(op *sim.Op) string) error {
	name, password, _ := strings.Cut(c.user, ":")
	if name == "" {
		return fmt.Errorf("--user: want NAME:PASSWORD")
	}
	if _, ok := c.w.Info(cmd.Via); !ok {
		return fmt.Errorf("--user needs a member to send to (--endpoints), not the client %q", cmd.Via)
	}
	switch why := c.w.CheckPassword(cmd.Via, name, password); why {
	case "":
	case server.ErrAuthNotEnabled:
		return c.send(cmd, bg, show, fail)
	default:
		c.printf("%sError: %s\n", c.callWarn(cmd, "/etcdserverpb.Auth/Authenticate", why), why)
		return nil
	}
	auth := sim.Command{Kind: sim.CmdAuth, Via: cmd.Via, By: cmd.By, Timeout: cmd.Timeout, Req: server.Request{Auth: &etcdserverpb.InternalRaftRequest{
		Authenticate: &etcdserverpb.InternalAuthenticateRequest{Name: name, SimpleToken: c.w.TokenPrefix()}}}}
	aop, err := c.do(auth)
	if err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(waitLimit)}
	var op *sim.Op
	j.poll = func() bool {
		if op == nil {
			switch aop.Status {
			case sim.OpPending:
				return false
			case sim.OpOK:
			default:
				if aop.Err == server.ErrAuthNotEnabled {
					break
				}
				c.output(j, c.failureLog(auth, aop)+"Error: "+aop.Err+"\n")
				return true
			}
			if r, ok := aop.Resp.Auth.(*etcdserverpb.AuthenticateResponse); ok {
				cmd.Req.Token = r.Token
			}
			if op, err = c.do(cmd); err != nil {
				c.output(j, "Error: "+err.Error()+"\n")
				return true
			}
		}
		if op.Status == sim.OpPending {
			return false
		}
		if op.Status == sim.OpOK {
			c.output(j, c.retryLog(cmd, op)+show(op))
		} else {
			c.output(j, c.retryLog(cmd, op)+c.failureLog(cmd, op)+fail(op))
		}
		return true
	}
	j.onDeadline = func() {
		c.output(j, fmt.Sprintf("Error: no answer after %s; the console stopped waiting\n", waitLimit))
	}
	return c.start(j, bg)
}

// userVerb: user add|delete|get|list|passwd|grant-role|revoke-role.
func (c *Console) userVerb(args []string, _ bool) error {
	if len(args) == 0 {
		return fmt.Errorf("user needs a subcommand: add, delete, get, list, passwd, grant-role or revoke-role")
	}
	sub := args[0]
	f := newFlags("user " + sub)
	newPassword := f.String("new-user-password", "", "the password (else NAME:PASSWORD)")
	noPassword := f.Bool("no-password", false, "a user without a password")
	f.Bool("interactive", true, "ignored: the console reads no terminal")
	var r etcdserverpb.InternalRaftRequest
	var show func(any) string
	switch sub {
	case "add", "passwd":
		rest, err := f.parse(args[1:], 1, 1, "user "+sub+" NAME[:PASSWORD] [--new-user-password PW] [--no-password]")
		if err != nil {
			return err
		}
		name, pw, hasPW := strings.Cut(rest[0], ":")
		if *newPassword != "" {
			name, pw, hasPW = rest[0], *newPassword, true
		}
		if name == "" {
			return fmt.Errorf("empty user name is not allowed")
		}
		if !hasPW && !*noPassword {
			if f.Lookup("interactive").Value.String() == "false" {
				// etcdctl reads it from its standard input: the next line.
				user := c.user
				c.readLine = func(line string) error {
					c.user = user
					defer func() { c.user = "" }()
					pw := strings.Fields(line + " ")[0:1]
					return c.userVerb(append(args[:1:1], rest[0]+":"+pw[0]), false)
				}
				return nil
			}
			return fmt.Errorf("user %s: give the password as %s:PASSWORD, or --interactive=false and the password on the next line (the console reads no terminal)", sub, name)
		}
		var hash string
		if !*noPassword {
			if hash, err = c.w.HashPassword(pw); err != nil {
				c.printf("Error: %v\n", err)
				return nil
			}
		}
		if sub == "add" {
			r.AuthUserAdd = &etcdserverpb.AuthUserAddRequest{Name: name, HashedPassword: hash, Options: &authpb.UserAddOptions{NoPassword: *noPassword}}
			show = func(any) string { return fmt.Sprintf("User %s created\n", name) }
		} else {
			r.AuthUserChangePassword = &etcdserverpb.AuthUserChangePasswordRequest{Name: name, HashedPassword: hash}
			show = func(any) string { return "Password updated\n" }
		}
	case "delete", "get":
		rest, err := f.parse(args[1:], 1, 1, "user "+sub+" NAME")
		if err != nil {
			return err
		}
		name := rest[0]
		if sub == "delete" {
			r.AuthUserDelete = &etcdserverpb.AuthUserDeleteRequest{Name: name}
			show = func(any) string { return fmt.Sprintf("User %s deleted\n", name) }
		} else {
			r.AuthUserGet = &etcdserverpb.AuthUserGetRequest{Name: name}
			show = func(resp any) string {
				s := "User: " + name + "\nRoles:"
				if g, ok := resp.(*etcdserverpb.AuthUserGetResponse); ok {
					for _, role := range g.Roles {
						s += " " + role
					}
				}
				return s + "\n"
			}
		}
	case "list":
		if _, err := f.parse(args[1:], 0, 0, "user list"); err != nil {
			return err
		}
		r.AuthUserList = &etcdserverpb.AuthUserListRequest{}
		show = func(resp any) string {
			l, _ := resp.(*etcdserverpb.AuthUserListResponse)
			return lines(l.GetUsers())
		}
	case "grant-role", "revoke-role":
		rest, err := f.parse(args[1:], 2, 2, "user "+sub+" USER ROLE")
		if err != nil {
			return err
		}
		user, role := rest[0], rest[1]
		if sub == "grant-role" {
			r.AuthUserGrantRole = &etcdserverpb.AuthUserGrantRoleRequest{User: user, Role: role}
			show = func(any) string { return fmt.Sprintf("Role %s is granted to user %s\n", role, user) }
		} else {
			r.AuthUserRevokeRole = &etcdserverpb.AuthUserRevokeRoleRequest{Name: user, Role: role}
			show = func(any) string { return fmt.Sprintf("Role %s is revoked from user %s\n", role, user) }
		}
	default:
		return fmt.Errorf("user: unknown subcommand %q (add, delete, get, list, passwd, grant-role, revoke-role)", sub)
	}
	return c.authCall(f, &r, show)
}

func lines(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// roleVerb: role add|delete|get|list|grant-permission|revoke-permission.
func (c *Console) roleVerb(args []string, _ bool) error {
	if len(args) == 0 {
		return fmt.Errorf("role needs a subcommand: add, delete, get, list, grant-permission or revoke-permission")
	}
	sub := args[0]
	f := newFlags("role " + sub)
	prefix := f.Bool("prefix", false, "the permission is on every key with the prefix")
	fromKey := f.Bool("from-key", false, "the permission is on every key from the key on")
	var r etcdserverpb.InternalRaftRequest
	var show func(any) string
	// keyRange is etcdctl's permRange.
	keyRange := func(key string, rest []string) (string, string, error) {
		end := ""
		if len(rest) > 0 {
			end = rest[0]
		}
		switch {
		case *prefix && *fromKey:
			return "", "", fmt.Errorf("--from-key and --prefix flags are mutually exclusive")
		case (*prefix || *fromKey) && end != "":
			return "", "", fmt.Errorf("unexpected endkey argument with --prefix or --from-key")
		case *prefix:
			_, e := server.PrefixRange(key)
			if key == "" {
				return "\x00", "\x00", nil
			}
			return key, string(e), nil
		case *fromKey:
			if key == "" {
				key = "\x00"
			}
			return key, "\x00", nil
		}
		return key, end, nil
	}
	switch sub {
	case "add", "delete", "get":
		rest, err := f.parse(args[1:], 1, 1, "role "+sub+" ROLE")
		if err != nil {
			return err
		}
		name := rest[0]
		switch sub {
		case "add":
			r.AuthRoleAdd = &etcdserverpb.AuthRoleAddRequest{Name: name}
			show = func(any) string { return fmt.Sprintf("Role %s created\n", name) }
		case "delete":
			r.AuthRoleDelete = &etcdserverpb.AuthRoleDeleteRequest{Role: name}
			show = func(any) string { return fmt.Sprintf("Role %s deleted\n", name) }
		default:
			r.AuthRoleGet = &etcdserverpb.AuthRoleGetRequest{Role: name}
			show = func(resp any) string { g, _ := resp.(*etcdserverpb.AuthRoleGetResponse); return roleGet(name, g) }
		}
	case "list":
		if _, err := f.parse(args[1:], 0, 0, "role list"); err != nil {
			return err
		}
		r.AuthRoleList = &etcdserverpb.AuthRoleListRequest{}
		show = func(resp any) string { l, _ := resp.(*etcdserverpb.AuthRoleListResponse); return lines(l.GetRoles()) }
	case "grant-permission":
		rest, err := f.parse(args[1:], 3, 4, "role grant-permission ROLE read|write|readwrite KEY [END] [--prefix|--from-key]")
		if err != nil {
			return err
		}
		name := rest[0]
		typ, ok := authpb.Permission_Type_value[strings.ToUpper(rest[1])]
		if !ok {
			return fmt.Errorf("invalid permission type: %s", rest[1])
		}
		key, end, err := keyRange(rest[2], rest[3:])
		if err != nil {
			return err
		}
		r.AuthRoleGrantPermission = &etcdserverpb.AuthRoleGrantPermissionRequest{Name: name,
			Perm: &authpb.Permission{PermType: authpb.Permission_Type(typ), Key: []byte(key), RangeEnd: []byte(end)}}
		show = func(any) string { return fmt.Sprintf("Role %s updated\n", name) }
	case "revoke-permission":
		rest, err := f.parse(args[1:], 2, 3, "role revoke-permission ROLE KEY [END] [--prefix|--from-key]")
		if err != nil {
			return err
		}
		name := rest[0]
		key, end, err := keyRange(rest[1], rest[2:])
		if err != nil {
			return err
		}
		r.AuthRoleRevokePermission = &etcdserverpb.AuthRoleRevokePermissionRequest{Role: name, Key: []byte(key), RangeEnd: []byte(end)}
		show = func(any) string {
			switch {
			case end == "":
				return fmt.Sprintf("Permission of key %s is revoked from role %s\n", key, name)
			case end == "\x00":
				return fmt.Sprintf("Permission of range [%s, <open ended> is revoked from role %s\n", key, name)
			}
			return fmt.Sprintf("Permission of range [%s, %s) is revoked from role %s\n", key, end, name)
		}
	default:
		return fmt.Errorf("role: unknown subcommand %q (add, delete, get, list, grant-permission, revoke-permission)", sub)
	}
	return c.authCall(f, &r, show)
}

// roleGet is etcdctl's simple printer of role get.
func roleGet(role string, r *etcdserverpb.AuthRoleGetResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Role %s\n", role)
	if role == "root" && r.GetPerm() == nil {
		b.WriteString("KV Read:\n\t[, <open ended>\nKV Write:\n\t[, <open ended>\n")
		return b.String()
	}
	printRange := func(p *authpb.Permission) {
		k, e := string(p.Key), string(p.RangeEnd)
		switch {
		case e == "":
			fmt.Fprintf(&b, "\t%s", k)
		case e != "\x00":
			fmt.Fprintf(&b, "\t[%s, %s)", k, e)
		default:
			fmt.Fprintf(&b, "\t[%s, <open ended>", k)
		}
		if _, pe := server.PrefixRange(k); len(k) > 0 && e != "" && string(pe) == e {
			fmt.Fprintf(&b, " (prefix %s)", k)
		}
		b.WriteString("\n")
	}
	b.WriteString("KV Read:\n")
	for _, p := range r.GetPerm() {
		if p.PermType == authpb.READ || p.PermType == authpb.READWRITE {
			printRange(p)
		}
	}
	b.WriteString("KV Write:\n")
	for _, p := range r.GetPerm() {
		if p.PermType == authpb.WRITE || p.PermType == authpb.READWRITE {
			printRange(p)
		}
	}
	return b.String()
}

// authVerb: auth enable|disable|status.
func (c *Console) authVerb(args []string, _ bool) error {
	if len(args) == 0 {
		return fmt.Errorf("auth needs a subcommand: enable, disable or status")
	}
	f := newFlags("auth " + args[0])
	if _, err := f.parse(args[1:], 0, 0, "auth "+args[0]); err != nil {
		return err
	}
	var r etcdserverpb.InternalRaftRequest
	var show func(any) string
	switch args[0] {
	case "enable":
		// etcdctl makes the root role and grants it to root when auth
		// enable answers "root user does not have root role", and asks
		// again; the console asks once.
		return c.authEnable(f)
	case "disable":
		r.AuthDisable = &etcdserverpb.AuthDisableRequest{}
		show = func(any) string { return "Authentication Disabled\n" }
	case "status":
		r.AuthStatus = &etcdserverpb.AuthStatusRequest{}
		show = func(resp any) string {
			s, _ := resp.(*etcdserverpb.AuthStatusResponse)
			return fmt.Sprintf("Authentication Status: %v\nAuthRevision: %d\n", s.GetEnabled(), s.GetAuthRevision())
		}
	default:
		return fmt.Errorf("auth: unknown subcommand %q (enable, disable, status)", args[0])
	}
	return c.authCall(f, &r, show)
}

// authMethod is the gRPC method of an Auth call, for clientv3's log line.
func authMethod(r *etcdserverpb.InternalRaftRequest) (string, bool) {
	var m string
	switch {
	case r == nil:
		return "", false
	case r.AuthEnable != nil:
		m = "AuthEnable"
	case r.AuthDisable != nil:
		m = "AuthDisable"
	case r.AuthStatus != nil:
		m = "AuthStatus"
	case r.Authenticate != nil:
		m = "Authenticate"
	case r.AuthUserAdd != nil:
		m = "UserAdd"
	case r.AuthUserDelete != nil:
		m = "UserDelete"
	case r.AuthUserGet != nil:
		m = "UserGet"
	case r.AuthUserChangePassword != nil:
		m = "UserChangePassword"
	case r.AuthUserGrantRole != nil:
		m = "UserGrantRole"
	case r.AuthUserRevokeRole != nil:
		m = "UserRevokeRole"
	case r.AuthUserList != nil:
		m = "UserList"
	case r.AuthRoleAdd != nil:
		m = "RoleAdd"
	case r.AuthRoleDelete != nil:
		m = "RoleDelete"
	case r.AuthRoleGet != nil:
		m = "RoleGet"
	case r.AuthRoleList != nil:
		m = "RoleList"
	case r.AuthRoleGrantPermission != nil:
		m = "RoleGrantPermission"
	case r.AuthRoleRevokePermission != nil:
		m = "RoleRevokePermission"
	default:
		return "", false
	}
	return "/etcdserverpb.Auth/" + m, true
}

// callWarn is clientv3's log line for etcdctl's call of method via cmd's
// member that failed with msg before it became an operation.
func (c *Console) callWarn(cmd sim.Command, method, msg string) string {
	if cmd.By != "etcdctl" {
		return ""
	}
	peer := peerNone
	if in, ok := c.w.Info(cmd.Via); ok && in.Up && in.Ready {
		peer = peerOf(c.hostPort(cmd.Via))
	}
	first := c.firstEndpoint
	if first == "" {
		first = cmd.Via
	}
	var b strings.Builder
	c.clientWarnAt(&b, c.w.Now(), 0, "etcd-client", first, peer, method, rpcError(msg))
	return b.String()
}

// authEnable is etcdctl's auth enable: AuthEnable, and while it answers
// "root user does not have root role", the root role added and granted
// to root, and AuthEnable again.
func (c *Console) authEnable(f *flags) error {
	from, err := c.via(f, "")
	if err != nil {
		return err
	}
	call := func(r *etcdserverpb.InternalRaftRequest) sim.Command {
		return sim.Command{Kind: sim.CmdAuth, Via: from, By: "etcdctl", Timeout: c.timeout(f, ""), Req: server.Request{Auth: r}}
	}
	enable := func() sim.Command {
		return call(&etcdserverpb.InternalRaftRequest{AuthEnable: &etcdserverpb.AuthEnableRequest{}})
	}
	steps := []sim.Command{enable()}
	var logs strings.Builder
	var op *sim.Op
	next := func() error {
		op, err = c.do(steps[0])
		return err
	}
	if c.user != "" {
		// With a user (auth is enabled already: AuthEnable answers OK).
		return c.authCall(f, enable().Req.Auth, func(any) string { return "Authentication Enabled\n" })
	}
	if err := next(); err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(waitLimit)}
	j.poll = func() bool {
		for {
			if op.Status == sim.OpPending {
				return false
			}
			cmd := steps[0]
			steps = steps[1:]
			if op.Status != sim.OpOK {
				logs.WriteString(c.retryLog(cmd, op) + c.failureLog(cmd, op))
				if cmd.Req.Auth.AuthEnable == nil || op.Err != rootRoleNotExist || len(steps) > 0 {
					c.output(j, logs.String()+"Error: "+op.Err+"\n")
					return true
				}
				steps = append(steps, call(&etcdserverpb.InternalRaftRequest{AuthRoleAdd: &etcdserverpb.AuthRoleAddRequest{Name: "root"}}),
					call(&etcdserverpb.InternalRaftRequest{AuthUserGrantRole: &etcdserverpb.AuthUserGrantRoleRequest{User: "root", Role: "root"}}),
					enable())
			}
			if len(steps) == 0 {
				c.output(j, logs.String()+"Authentication Enabled\n")
				return true
			}
			if err := next(); err != nil {
				c.output(j, "Error: "+err.Error()+"\n")
				return true
			}
		}
	}
	j.onDeadline = func() {
		c.output(j, fmt.Sprintf("Error: no answer after %s; the console stopped waiting\n", waitLimit))
	}
	return c.start(j, false)
}

// rootRoleNotExist is etcd's ErrRootRoleNotExist, as a client sees it.
var rootRoleNotExist = status.Convert(rpctypes.ErrGRPCRootRoleNotExist).Message()

// downgrade validate|enable VERSION, downgrade cancel: etcdctl downgrade,
// served by the endpoint's member as etcd's version.Manager serves it
// (server.Downgrade): enable and cancel go through raft.
func (c *Console) downgradeVerb(args []string, _ bool) error {
	if len(args) == 0 {
		return fmt.Errorf("downgrade needs a subcommand: validate, enable or cancel")
	}
	sub := args[0]
	f := newFlags("downgrade " + sub)
	var r etcdserverpb.DowngradeRequest
	switch sub {
	case "validate", "enable":
		rest, err := f.parse(args[1:], 0, 1, "downgrade "+sub+" TARGET_VERSION")
		if err != nil {
			return err
		}
		if len(rest) == 0 {
			c.printf("Error: TARGET_VERSION not provided\n")
			return nil
		}
		r.Version = rest[0]
		r.Action = etcdserverpb.DowngradeRequest_VALIDATE
		if sub == "enable" {
			r.Action = etcdserverpb.DowngradeRequest_ENABLE
		}
	case "cancel":
		if _, err := f.parse(args[1:], 0, 0, "downgrade cancel"); err != nil {
			return err
		}
		r.Action = etcdserverpb.DowngradeRequest_CANCEL
	default:
		return fmt.Errorf("downgrade: unknown subcommand %q (validate, enable, cancel)", sub)
	}
	format := *f.writeOut
	return c.memberCall(f, sim.Command{Kind: sim.CmdDowngrade, Downgrade: &r}, func(op *sim.Op) string {
		switch format {
		case "json":
			out, _ := json.Marshal(&etcdserverpb.DowngradeResponse{Header: op.Header(), Version: op.Version()})
			return string(out) + "\n"
		case "simple":
			return fmt.Sprintf("Downgrade %s success, cluster version %s\n", sub, op.Version())
		}
		msg, _ := printerUnsupported(format)
		return msg
	})
}

// authenticateNow authenticates the console's --user for cmd before a
// stream starts (a watch), waiting for the answer: the token ("" while
// auth is disabled), or done when it failed (and said so). It waits in
// the foreground of a blocking console only.
func (c *Console) authenticateNow(cmd sim.Command, bg bool) (token string, done bool, err error) {
	name, password, _ := strings.Cut(c.user, ":")
	if bg || c.opts.Mode == Async {
		return "", true, fmt.Errorf("--user: a watch authenticates in the foreground of raftsim shell only")
	}
	if _, ok := c.w.Info(cmd.Via); !ok || name == "" {
		return "", true, fmt.Errorf("--user needs NAME:PASSWORD and a member to send to (--endpoints)")
	}
	switch why := c.w.CheckPassword(cmd.Via, name, password); why {
	case "":
	case server.ErrAuthNotEnabled:
		return "", false, nil
	default:
		c.printf("%sError: %s\n", c.callWarn(cmd, "/etcdserverpb.Auth/Authenticate", why), why)
		return "", true, nil
	}
	auth := sim.Command{Kind: sim.CmdAuth, Via: cmd.Via, By: cmd.By, Req: server.Request{Auth: &etcdserverpb.InternalRaftRequest{
		Authenticate: &etcdserverpb.InternalAuthenticateRequest{Name: name, SimpleToken: c.w.TokenPrefix()}}}}
	op, err := c.do(auth)
	if err != nil {
		return "", true, err
	}
	j := &job{deadline: c.w.Now().Add(waitLimit), poll: func() bool { return op.Status != sim.OpPending }}
	if err := c.wait(j); err != nil {
		return "", true, err
	}
	if r, ok := op.Resp.Auth.(*etcdserverpb.AuthenticateResponse); ok && op.Status == sim.OpOK {
		return r.Token, false, nil
	}
	c.printf("%sError: %s\n", c.failureLog(auth, op), op.Err)
	return "", true, nil
}
