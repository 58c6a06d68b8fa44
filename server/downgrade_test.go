package server

import (
	"testing"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// TestDowngrade: etcd v3.6.16's answers (the etcdcompare downgrade
// session): the checks in etcd's order, and what enable and cancel
// propose.
func TestDowngrade(t *testing.T) {
	const (
		validate = etcdserverpb.DowngradeRequest_VALIDATE
		enable   = etcdserverpb.DowngradeRequest_ENABLE
		cancel   = etcdserverpb.DowngradeRequest_CANCEL
	)
	for _, c := range []struct {
		action          etcdserverpb.DowngradeRequest_DowngradeAction
		version, cv, in string
		want, set, why  string
	}{
		{validate, "3.5", "3.6.0", "", "3.6", "", ""},
		{validate, "3.5.1", "3.6.0", "", "3.6", "", ""},
		{validate, "3.4", "3.6.0", "", "", "", "etcdserver: invalid downgrade target version"},
		{validate, "v3.5", "3.6.0", "", "", "", "etcdserver: wrong downgrade target version format"},
		{enable, "3.5.1", "3.6.0", "", "3.6", "enable 3.5.0", ""},
		{enable, "3.5", "3.6.0", "3.5.0", "", "", "etcdserver: cluster has a downgrade job in progress"},
		{validate, "3.5", "3.5.0", "3.5.0", "", "", "etcdserver: invalid downgrade target version"},
		{enable, "3.4", "3.5.0", "3.5.0", "", "", "etcdserver: cluster has a downgrade job in progress"},
		{cancel, "", "3.5.0", "3.5.0", "3.5", "cancel", ""},
		{cancel, "", "3.6.0", "", "3.6", "", ""},
	} {
		v, set, why := Downgrade(&etcdserverpb.DowngradeRequest{Action: c.action, Version: c.version}, c.cv, c.in)
		got := ""
		switch {
		case set != nil && set.Enabled:
			got = "enable " + set.Ver
		case set != nil:
			got = "cancel"
		}
		if v != c.want || got != c.set || why != c.why {
			t.Errorf("%s %q at %s (in progress %q): %q, %q, %q; want %q, %q, %q", c.action, c.version, c.cv, c.in, v, got, why, c.want, c.set, c.why)
		}
	}
}
