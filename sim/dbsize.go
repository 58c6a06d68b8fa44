package sim

// A member's database file is its server.Backend (server/backend.go): it
// is part of the disk, so a crash keeps it.

// attachDB connects the member's new store to its backend (which makes
// the file if the member has none yet), committing by the world's clock,
// and lets it share records with the other members.
func (m *member) attachDB() {
	m.srv.Backend.Attach(m.srv.KV, func() int64 { return int64(m.w.now) })
	m.srv.KV.Store.ShareRecords(&m.w.records)
}
