// Package membership is etcd's cluster membership for one simulated member,
// as etcd's etcdserver/api/membership draws it: the membership a member has
// applied (Cluster: members, publication, the cluster version, the alarms,
// and its encoding in a snapshot), a configuration change's context and
// its validation as every member applies it, the strict reconfiguration
// checks before a change is proposed (MayAdd, MayRemove, MayPromote), the
// leader's cluster version rule (WantVersion), the member and cluster IDs
// etcd derives from the peer URLs and the cluster token, the URL rules and
// --initial-cluster, and the checks etcdutl snapshot restore makes of its
// flags.
//
// It drives nothing and knows no hosts: package sim's world owns the
// machines, their data directories and the raft groups, and calls in here
// for etcd's rules. Nothing here reads the wall clock, starts a goroutine
// or lets map order reach its answers.
package membership
