package server

import (
	"fmt"
	"slices"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
)

// Alarm is one raised alarm, as etcd's alarm store keeps it.
type Alarm struct {
	Member uint64 // etcd's member ID
	Kind   etcdserverpb.AlarmType
}

// Alarms are the alarms a member has applied, in the order raised (etcd's
// alarm store, v3alarm.AlarmStore). A member keeps them with its
// membership, in its snapshots.
type Alarms []Alarm

// Has reports whether member's alarm of kind is raised.
func (as Alarms) Has(member uint64, kind etcdserverpb.AlarmType) bool {
	return slices.Contains(as, Alarm{member, kind})
}

// NoSpace reports whether the NOSPACE alarm is raised (by any member).
func (as Alarms) NoSpace() bool {
	return slices.ContainsFunc(as, func(a Alarm) bool { return a.Kind == etcdserverpb.AlarmType_NOSPACE })
}

// Members returns the alarms in etcd's types, as an AlarmResponse lists
// them.
func (as Alarms) Members() []*etcdserverpb.AlarmMember {
	var out []*etcdserverpb.AlarmMember
	for _, a := range as {
		out = append(out, &etcdserverpb.AlarmMember{MemberID: a.Member, Alarm: a.Kind})
	}
	return out
}

// Kinds returns the kinds raised ("NOSPACE"), by any member, each once, in
// the order first raised.
func (as Alarms) Kinds() []string {
	var out []string
	for _, a := range as {
		if s := a.Kind.String(); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Apply applies an alarm request as etcd's alarm store does: GET lists,
// ACTIVATE adds (once), DEACTIVATE removes. It returns the alarms the
// answer lists (all of them for a GET, the one changed otherwise) and
// whether an alarm was raised or cleared.
func (as *Alarms) Apply(r *etcdserverpb.AlarmRequest) (answer []*etcdserverpb.AlarmMember, changed bool) {
	a := Alarm{r.MemberID, r.Alarm}
	switch r.Action {
	case etcdserverpb.AlarmRequest_GET:
		return as.Members(), false
	case etcdserverpb.AlarmRequest_ACTIVATE:
		if r.Alarm == etcdserverpb.AlarmType_NONE || as.Has(a.Member, a.Kind) {
			return nil, false
		}
		*as, changed = append(*as, a), true
	case etcdserverpb.AlarmRequest_DEACTIVATE:
		i := slices.Index(*as, a)
		if i < 0 {
			return nil, false
		}
		*as, changed = slices.Delete(*as, i, i+1), true
	}
	return []*etcdserverpb.AlarmMember{{MemberID: a.Member, Alarm: a.Kind}}, changed
}

// AlarmString is an alarm as etcd prints it (the proto's compact text):
// alarm list's lines and endpoint status's errors.
func AlarmString(a *etcdserverpb.AlarmMember) string {
	return fmt.Sprintf("memberID:%d alarm:%s ", a.MemberID, a.Alarm)
}
