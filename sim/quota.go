package sim

import (
	"fmt"

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

// overQuota carries out etcd's gRPC quota check
// (server.Backend.QuotaCheck): whether the member refuses op for lack of
// space, and proposing the NOSPACE alarm through raft when the check says
// to raise it.
func (m *member) overQuota(op *Op) bool {
	quota := m.w.cfg.quota(m.name)
	refuse, raise := m.srv.Backend.QuotaCheck(&op.Req, quota, m.cluster.Alarms, m.memberID, m.soft.Lead != 0)
	if raise {
		m.raiseNoSpace(quota)
	}
	return refuse
}

// raiseNoSpace proposes the member's NOSPACE alarm, and says so in the
// transcript once raft has taken it.
func (m *member) raiseNoSpace(quota int64) {
	data := server.NoSpaceAlarm(m.srv.IDs.Next(), m.memberID)
	m.enter()
	err := m.rn.Propose(data)
	m.leave()
	if err == nil {
		m.w.fault(m.id, fmt.Sprintf(quotaExceededText, m.srv.Backend.File.Size(), quota))
		m.flush()
	}
}
