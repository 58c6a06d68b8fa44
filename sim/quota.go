package sim

import (
	"fmt"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/server"
)

// etcd's space quota and alarms are the server layer's
// (server/quota.go, server/alarm.go); here are the member's part: its
// quota from the configuration, proposing the alarm, and saying in the
// transcript what was applied.

// DefaultQuota is etcd's default --quota-backend-bytes, 2 GiB
// (server.DefaultQuota; the window asks here).
const DefaultQuota = server.DefaultQuota

// quota is the named member's --quota-backend-bytes.
func (c *Config) quota(name string) int64 {
	if q := c.QuotaBackendBytesOf[name]; q > 0 {
		return q
	}
	if c.QuotaBackendBytes <= 0 {
		return DefaultQuota
	}
	return c.QuotaBackendBytes
}

// overQuota is etcd's gRPC quota check (server.Backend.OverQuota): a
// request that would take the member's database file to the quota is
// refused, and the member raises the NOSPACE alarm through raft.
func (m *member) overQuota(op *Op) bool {
	if !m.backend.OverQuota(&op.Req, m.w.cfg.quota(m.name)) {
		return false
	}
	if !m.cluster.Alarms.Has(m.memberID, etcdserverpb.AlarmType_NOSPACE) && m.soft.Lead != 0 {
		data := server.NoSpaceAlarm(m.ids.Next(), m.memberID)
		m.enter()
		err := m.rn.Propose(data)
		m.leave()
		if err == nil {
			m.w.fault(m.id, fmt.Sprintf(quotaExceededText, m.backend.File.Size(), m.w.cfg.quota(m.name)))
			m.flush()
		}
	}
	return true
}

// Alarms returns the kinds of the alarms the named member has applied
// ("NOSPACE"), raised by any member, in the order raised; nil if it is
// down.
func (w *World) Alarms(name string) []string {
	m := w.byName[name]
	if m == nil || !m.up {
		return nil
	}
	return m.cluster.Alarms.Kinds()
}

// Quota returns the named member's --quota-backend-bytes.
func (w *World) Quota(name string) int64 { return w.cfg.quota(name) }
