package scenarios

import (
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"gopkg.in/yaml.v3"
)

// downgradeActions are a downgrade step's actions, by etcd's action.
var downgradeActions = map[etcdserverpb.DowngradeRequest_DowngradeAction]string{
	etcdserverpb.DowngradeRequest_VALIDATE: "validate",
	etcdserverpb.DowngradeRequest_ENABLE:   "enable",
	etcdserverpb.DowngradeRequest_CANCEL:   "cancel",
}

// downgrade reads a downgrade step: etcd's Maintenance.Downgrade
// (etcdctl downgrade validate|enable VERSION, downgrade cancel), sent via
// a member (or a client): {via, action, version, by, external, as, token}.
// The version is passed as the client sent it: the member checks it, as
// etcd does.
func (p *parser) downgrade(st *Step, v *yaml.Node) {
	what := st.Kind.String()
	f := p.mapping(v, what, []string{"via", "by", "external", "as", "token", "action", "version"})
	if f == nil {
		return
	}
	if r, ok := p.requiredRef(f, v, what, "via", "the member (or client) the call goes to"); ok {
		st.Via = r
	}
	r := &etcdserverpb.DowngradeRequest{}
	x := f.get("action")
	if x == nil {
		p.errorf(p.pos(v), "downgrade: missing action: (validate, enable or cancel)")
	} else if s, ok := p.str(x, "downgrade action"); ok {
		found := false
		for _, a := range []etcdserverpb.DowngradeRequest_DowngradeAction{etcdserverpb.DowngradeRequest_VALIDATE,
			etcdserverpb.DowngradeRequest_ENABLE, etcdserverpb.DowngradeRequest_CANCEL} {
			if downgradeActions[a] == s {
				r.Action, found = a, true
			}
		}
		if !found {
			p.errorf(p.pos(x), "downgrade action: %q is none of validate, enable, cancel", s)
		}
	}
	x = f.get("version")
	switch {
	case x != nil && r.Action == etcdserverpb.DowngradeRequest_CANCEL:
		p.errorf(p.pos(x), "downgrade: cancel takes no version")
	case x != nil:
		if s, ok := p.str(x, "downgrade version"); ok {
			r.Version = s
		}
	case r.Action != etcdserverpb.DowngradeRequest_CANCEL && f.get("action") != nil:
		p.errorf(p.pos(v), `downgrade: missing version: (the target, like "3.5")`)
	}
	st.Downgrade = r
	p.membershipCall(st, f, what)
}
