package console

import (
	"fmt"
	"strings"
)

// helpText is each verb's usage line and what it does. Every verb has one
// (TestEveryVerbHasHelp).
var helpText = map[string][2]string{
	"put": {"put KEY VALUE [--lease=ID] [--prev-kv] [-w json|fields] [--via CLIENT] [--endpoints M,..] [&]",
		"Writes KEY. The request goes to the first endpoint that is up (default: every member, in order), which\n" +
			"proposes it; raft forwards it to the leader. Prints OK once that member has applied it. --lease\n" +
			"attaches the key to a lease (hex ID); --prev-kv prints what the key held before."},
	"get": {"get KEY [END] [--prefix|--from-key] [--rev N] [--limit N] [--keys-only] [--count-only] [--sort-by CREATE|KEY|MODIFY|VALUE|VERSION] [--order ASCEND|DESCEND] [--print-value-only] [--consistency=l|s] [-w json|fields] [--via CLIENT] [--endpoints M,..] [&]",
		"Reads KEY, the keys in [KEY, END), every key under it (--prefix) or from it on (--from-key); get \"\"\n" +
			"--prefix reads them all. --rev N reads the store as it was at revision N (an error once N is\n" +
			"compacted). --consistency=l (default) is linearizable: a ReadIndex round through the leader.\n" +
			"--consistency=s is serializable: the member answers from its own state at once, and may be stale."},
	"del": {"del KEY [END] [--prefix|--from-key] [--prev-kv] [-w json|fields] [--via CLIENT] [--endpoints M,..] [&]",
		"Deletes KEY (or a range of keys) and prints how many keys were deleted; --prev-kv prints them too."},
	"watch": {"watch KEY [END] [--prefix] [--rev N] [--prev-kv] [--progress-notify] [-w json|fields] [--for DUR] [--via CLIENT] [--endpoints M] [&]",
		"Streams changes to KEY as the serving member applies them: PUT/DELETE, key, value. --rev N replays\n" +
			"the changes since revision N first (cancelled if N is compacted). Like etcdctl's, the watch requires a\n" +
			"leader: its member cancels it after three election timeouts without one. In a terminal it runs, with\n" +
			"virtual time passing at wall-clock pace, until you press Ctrl-C. --for DUR stops it after DUR of\n" +
			"virtual time (scripts must give --for, or &). With & it streams in the background while you type\n" +
			"other commands; its lines start with [N]; stop printing them with unwatch N. --progress-notify: etcd's\n" +
			"periodic \"progress notify: REV\" (every 10m plus up to 1m, after an interval without events, once synced)."},
	"txn": {"txn [-i] [-w json|fields] [--via CLIENT] [--endpoints M,..]",
		"A transaction, read from the lines that follow, as etcdctl reads its input: compares such as\n" +
			"mod(\"k\") = \"5\" (ver, create, mod, val, lease; =, !=, <, >), an empty line, the requests to run if\n" +
			"every compare holds (put, get, del with their flags), an empty line, the requests to run otherwise,\n" +
			"an empty line. -i prompts for each part. Prints SUCCESS or FAILURE and each request's answer."},
	"lease": {"lease grant TTL | revoke ID | timetolive ID [--keys] | keep-alive [--once] [--for DUR] ID | list",
		"Leases, by hex ID. grant goes through raft; keep-alive and timetolive are answered by the leader,\n" +
			"whose clock expires leases and revokes them through raft (with the keys attached to them). list is\n" +
			"the serving member's own. keep-alive without --once renews every TTL/3 until the lease is gone."},
	"compaction": {"compaction REV [--physical]",
		"Compacts the MVCC history before revision REV, through raft: reads and watches from older revisions\n" +
			"fail with \"required revision has been compacted\". Raft log compaction is raft-snapshot."},
	"endpoint": {"endpoint health|status|hashkv [--cluster] [--rev N] [-w simple|json|table|fields] [--endpoints M,..]",
		"health: a linearizable get of the key \"health\" through each endpoint at once, as etcdctl does;\n" +
			"answers are listed in the order they arrive. status: each member's own view (ID, version, sizes,\n" +
			"is leader, is learner, raft term, raft index = commit index, raft applied index, errors), asked\n" +
			"in turn; one that does not answer costs the command timeout. hashkv: each member's hash of its\n" +
			"store up to --rev, as etcd computes it. --cluster asks a member for the member list and uses every\n" +
			"member's client URL."},
	"alarm": {"alarm list [-w simple|json|table|fields] | alarm disarm",
		"list: the cluster's alarms, read through raft as etcd does (a member raises NOSPACE when a write would take its database\n" +
			"file past --quota-backend-bytes). disarm: deactivates each alarm through raft, as clientv3 does; a write while DB SIZE is\n" +
			"still past the quota raises it again: compaction, defrag, then disarm."},
	"user": {"user add NAME[:PASSWORD] [--new-user-password PW] [--no-password] | user delete|get NAME | user list | user passwd NAME[:PASSWORD] [--interactive=false] | user grant-role|revoke-role USER ROLE",
		"etcd's users, through raft as etcd v3.6 sends every Auth call. A password is hashed with bcrypt on a\n" +
			"salt from the world's seed; only the hash is proposed and saved. --interactive=false: the password is\n" +
			"the next line. Once auth is enabled, give --user NAME:PASSWORD (root's, for these)."},
	"role": {"role add|delete|get ROLE | role list | role grant-permission ROLE read|write|readwrite KEY [END] [--prefix|--from-key] | role revoke-permission ROLE KEY [END] [--prefix|--from-key]",
		"etcd's roles and their key-range permissions, printed as etcdctl prints them."},
	"auth": {"auth enable | auth disable | auth status",
		"Turns etcd's auth on or off (enable makes the root role and grants it to root if root lacks it, as\n" +
			"etcdctl does), or prints whether it is on and the auth revision. Every verb takes --user NAME:PASSWORD:\n" +
			"the console authenticates (a simple token through raft), then sends the request with the token."},
	"downgrade": {"downgrade validate|enable VERSION | downgrade cancel",
		"Maintenance.Downgrade as etcd v3.6.16 answers it for v3.6 members: validate checks the target (one minor\n" +
			"below the cluster version, none in progress); enable also proposes the downgrade through raft, and the\n" +
			"leader's version monitor lowers the cluster version to it 4s later; cancel ends it, and the cluster\n" +
			"version goes back up to 3.6."},
	"defrag": {"defrag [--cluster] [--endpoints M]",
		"Rewrites each member's database file without its free pages, as etcdctl defrag does: DB SIZE drops to IN USE."},
	"version": {"version", "Prints etcdctl's version and its API version, as etcdctl v3.6.16 does."},
	"member": {"member list [-w simple|json|table|fields] | member add NAME --peer-urls URL [--learner] | member remove ID|NAME | member promote ID|NAME | member update ID|NAME --peer-urls URL",
		"list: the members, as the first endpoint that answers has them configured. add/remove/promote/update:\n" +
			"a configuration change proposed through the leader, with etcd's checks (a second learner, a\n" +
			"promotion of a learner that is behind, a change that would leave too few started or connected\n" +
			"members are refused); waits until the leader has applied it. A member added stays unstarted\n" +
			"until you start it. IDs are hex, as etcdctl prints them; member names work too."},
	"move-leader": {"move-leader ID|NAME",
		"Asks the leader to hand leadership to that member (MsgTimeoutNow) and waits until it leads."},
	"etcdutl": {"etcdutl snapshot restore FILE --name NAME [--initial-cluster N1=URL1,...] [--initial-cluster-token T] [--initial-advertise-peer-urls URL] [--data-dir DIR] | etcdutl snapshot status FILE",
		"restore: writes a data directory on host NAME from an etcd snapshot, as etcdutl does: a new cluster (member and cluster IDs\n" +
			"from the peer URLs and the token), the store's revision kept. Then restart NAME --data-dir DIR. The transcript says what is lost."},
	"snapshot": {"snapshot save FILE --endpoints M | snapshot status FILE [-w table|json]",
		"save: writes one member's state machine (keys, revision, applied index, term) to FILE; like etcdctl it\n" +
			"needs exactly one endpoint. status: hash, revision, total keys and total size of such a file."},

	"tick": {"tick [N]", "Lets N ticks (heartbeat intervals; default 1) of virtual time pass."},
	"wait": {"wait DUR", "Lets DUR (like 500ms or 3s) of virtual time pass, printing whatever arrives meanwhile."},
	"load": {"load --for DUR [--rate N] [--via C1,C2] [--keys N] [--prefix P] [--distribution uniform|zipf] [--mix put=4,get=1] [&]",
		"Sends a client workload for DUR, as a scenario's load: step: N requests a second from the clients in turn, on keys PREFIX0.., mixed by weight (put, get, serializable, delete, txn). Prints a summary once every request has its answer."},
	"crash":         {"crash MEMBER...", "Crashes members: volatile state is lost, the disk is kept. Stacked: its apiserver fails with it."},
	"restart":       {"restart MEMBER... [--data-dir DIR] [--force-new-cluster]", "Restarts crashed members from their disks; --data-dir: from that data directory on the host (one etcdutl snapshot restore wrote); --force-new-cluster: as a cluster of one that keeps its data, member ID and cluster ID, as etcd does (the others removed through its log)."},
	"lose":          {"lose HOST...", "Loses hosts for good: the process and every data directory on its disks are gone. Only a restore brings a member back there."},
	"start":         {"start MEMBER...", "Starts members that member add added (etcd with --initial-cluster-state existing): an empty disk, then a snapshot or the log from the leader."},
	"stall":         {"stall MEMBER DUR", "Freezes a member's process for DUR, as a long GC pause does; its input queues."},
	"clock":         {"clock MEMBER RATE", "Makes a member's ticks run faster (1.5) or slower (0.5) than the others'."},
	"partition":     {"partition A,B C,D,E | partition A,B", "Cuts every link between the groups; one group is cut off from the rest. Clients still reach their members."},
	"isolate":       {"isolate MEMBER...", "Cuts a member off from every other member; its own clients still reach it."},
	"cut":           {"cut FROM TO [--one-way]", "Cuts one link (both ways unless --one-way)."},
	"restore":       {"restore FROM TO [--one-way]", "Restores one link."},
	"link":          {"link FROM TO [--latency 50ms|10ms-20ms] [--loss 5%] [--duplicate 1%] [--one-way]", "Changes a link's latency, loss or duplication."},
	"heal":          {"heal", "Restores every link."},
	"campaign":      {"campaign MEMBER", "Fires a member's election timer now."},
	"raft-snapshot": {"raft-snapshot MEMBER", "Makes a member snapshot its state and compact its raft log now."},
	"say":           {"say TEXT", "Writes a caption into the trace and the saved session."},
	"status":        {"status", "A compact picture of every member: role, term, vote, leader, commit, applied and the log's terms."},
	"trace":         {"trace on|off|all", "on: print raft messages and other events as they happen (heartbeats hidden). all: heartbeats too."},
	"save":          {"save FILE.yaml", "Writes the session so far as a scenario; raftsim run FILE.yaml replays it to the same trace."},
	"unwatch":       {"unwatch [N]", "Stops background job N (default: all); a watch's stream is closed."},
	"help":          {"help [VERB]", "Lists the verbs, or explains one."},
	"exit":          {"exit", "Ends the session (so do quit and Ctrl-D)."},
	"quit":          {"quit", "Ends the session."},
}

func (c *Console) help(args []string, _ bool) error {
	if len(args) > 1 {
		return fmt.Errorf("help takes one verb at most (usage: help [VERB])")
	}
	if len(args) == 1 {
		name := args[0]
		h, ok := helpText[name]
		if !ok {
			return fmt.Errorf("no help for %q: it is not a verb; type help for the list", name)
		}
		c.printf("usage: %s\n%s\n", h[0], h[1])
		return nil
	}
	var b strings.Builder
	b.WriteString("etcdctl verbs (etcdctl's syntax and output; --endpoints defaults to every member):\n")
	for _, v := range verbs {
		if !v.sim {
			fmt.Fprintf(&b, "  %-12s %s\n", v.name, firstLine(helpText[v.name][0]))
		}
	}
	b.WriteString("simulator verbs (not in etcdctl):\n")
	for _, v := range verbs {
		if v.sim {
			fmt.Fprintf(&b, "  %-14s %s\n", v.name, helpText[v.name][0])
		}
	}
	b.WriteString("Members may be named, given by hex ID, or as @leader / @follower. help VERB says more.\n")
	c.printf("%s", b.String())
	return nil
}

func firstLine(s string) string {
	if len(s) > 100 {
		if i := strings.LastIndex(s[:100], " "); i > 0 {
			return s[:i] + " …"
		}
	}
	return s
}
