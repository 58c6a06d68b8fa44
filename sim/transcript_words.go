package sim

import (
	"strings"

	"github.com/raftsim/raftsim/i18n"
)

// The transcript's words for texts the history keeps in English: fault
// and action texts, drop reasons, and the outcome of client requests.
// Each is translated by the catalog; a text not listed here (a new one,
// or a key or a value) stays as it is.

// dropWord is a drop reason's name (netmodel's), marked for the catalog.
func dropWord(reason string) string {
	for _, w := range []string{i18n.N("partition"), i18n.N("loss"), i18n.N("destination-down"),
		i18n.N("queue-full"), i18n.N("unknown-destination"), i18n.N("cluster-id-mismatch"), i18n.N("removed-member")} {
		if w == reason {
			return w
		}
	}
	return reason
}

// faultTexts are the fault and action texts that have no parameter.
var faultTexts = []string{
	i18n.N("heal: every link restored"),
	i18n.N("crashes (volatile state lost, disk kept)"),
	i18n.N("restarts from its disk"),
	i18n.N("isolated from every other member"),
	i18n.N("election timer fires (campaign)"),
	i18n.N("removed from the cluster; it shuts down"),
	i18n.N("resumes after its stall"),
	loseUnsyncedText,
	publishedText,
	cannotPublishText,
	startText,
	dropTransferText,
	dropNoForwardingText,
	destroyText,
}

// What a starting member does (boot.go).
var (
	publishedText        = i18n.N("has published its name and client URLs through raft; it serves clients now")
	cannotPublishText    = i18n.N("cannot publish itself (proposal forwarding is off); it serves clients without it")
	clusterVersionPrefix = i18n.N("proposes cluster version ")
	tickAdvancePrefix    = i18n.N("fast-forwards its election timer by ")
	tickAdvanceSuffix    = i18n.N(" ticks (etcd's initial election tick advance)")
	refusedConfText      = i18n.N("refused, applied as no change: ")
	startText            = i18n.N("starts for the first time, with an empty disk")
)

// Why raft dropped a proposal (apply.go): etcd's client sees only "raft
// proposal dropped".
var (
	dropTransferText     = i18n.N("drops a proposal: a leadership transfer is in progress")
	dropNoForwardingText = i18n.N("drops a proposal: proposal forwarding is off, and it is not the leader")
)

// The fault and action texts made by fmt.Sprintf with a format that has
// parameters inside it; faultText says them again by Lang.Reword.
var (
	loseUnsyncedText    = i18n.N("its disk loses its last write (injected bug lose-unsynced)")
	leaseRevokedOne     = i18n.N("applies the revocation of expired lease %016x: %d key deleted")
	leaseRevokedMany    = i18n.N("applies the revocation of expired lease %016x: %d keys deleted")
	leasesInheritedOne  = i18n.N("as the new leader, gives the %d lease it inherits a full TTL again, plus %s")
	leasesInheritedMany = i18n.N("as the new leader, gives the %d leases it inherits a full TTL again, plus %s")
	leaseExpiredText    = i18n.N("lease %016x expired by its clock; proposes its revocation")
	countsCommittedText = i18n.N("counts index %d (term %d) committed: %d of %d voters store it (the rule Figure 8 refutes)")
	loadText            = i18n.N("load for %s: %d requests a second via %s on %d keys %s0.. (%s); mix put %d get %d serializable %d delete %d txn %d")
	faultFormats        = []string{leaseRevokedOne, leaseRevokedMany, leasesInheritedOne, leasesInheritedMany,
		leaseExpiredText, countsCommittedText, loadText, restartFromText, snapshotSavedText, restoredText, lostNothingText, lostWritesText, lostLeasesText, forceDiscardText, forceRemoveText, forceAloneText, forceLostNothingText, forceLostWritesText, quotaExceededText, alarmRaisedText, alarmClearedText, defragText}
)

// pick is one of two formats by English's plural rule.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// The details of safety violations (safety.go, member.go, countcommit.go):
// the invariant's name (the Raft paper's) stays, the detail is said again
// in the transcript's language.
var (
	bothLeadText           = i18n.N("%s and %s both lead term %d")
	logDiffersText         = i18n.N("%s has an entry at index %d term %d whose log differs from another member's with the same index and term")
	commitDiffersText      = i18n.N("%s committed an entry at index %d (term %d) that differs from the entry committed there before (term %d)")
	applyDiffersText       = i18n.N("%s applied an entry at index %d (term %d) that differs from the entry applied there by another member (term %d)")
	appliedUncommittedText = i18n.N("%s applied the entry at index %d (term %d) before it was committed (its commit index is %d)")
	applyNotCommittedText  = i18n.N("%s applied an entry at index %d that differs from the one committed there")
	leaderLacksText        = i18n.N("%s leads term %d but its log lacks the entry committed at index %d (term %d) in term %d")
	countedDiffersText     = i18n.N("%s holds at index %d an entry (term %d) that differs from the one counted committed there")
	overwroteText          = i18n.N("%s overwrote its own log from index %d while leading term %d")
	belowSnapshotText      = i18n.N("%s appended at %d below its snapshot")
	gapText                = i18n.N("%s appended at %d with a gap")
	violationFormats       = []string{bothLeadText, logDiffersText, commitDiffersText, applyDiffersText,
		appliedUncommittedText, applyNotCommittedText, leaderLacksText, countedDiffersText, overwroteText,
		belowSnapshotText, gapText}
)

// violationText translates a safety violation's text ("Election Safety:
// etcd-1 and etcd-2 both lead term 2"); raft's own assertions stay.
func violationText(l i18n.Lang, text string) string {
	for _, inv := range Invariants {
		if detail, ok := strings.CutPrefix(text, inv+": "); ok {
			for _, f := range violationFormats {
				if d, ok := l.Reword(f, detail); ok {
					return inv + ": " + d
				}
			}
		}
	}
	return text
}

// faultAffixes are the fault texts with a parameter in the middle.
var faultAffixes = [][2]string{{tickAdvancePrefix, tickAdvanceSuffix}}

// faultPrefixes are the fault and action texts that end in a parameter
// (a duration, a name, a list of groups).
var faultPrefixes = []string{
	i18n.N("stalls for "),
	i18n.N("clock runs at "),
	i18n.N("asked to transfer leadership to "),
	i18n.N("proposes: "),
	i18n.N("partition "),
	i18n.N("cut "),
	i18n.N("restore "),
	i18n.N("link "),
	clusterVersionPrefix,
}

// The words of a configuration (world.go's describeConf): raft's
// ConfState, its voters, learners and outgoing voters.
var confWords = []string{votersWord, learnersWord, outgoingWord}

var (
	votersWord   = i18n.N("voters=")
	learnersWord = i18n.N(" learners=")
	outgoingWord = i18n.N(" outgoing=")
)

// confText translates a configuration change's text: a configuration
// (names stay), or a refusal (etcd's error stays).
func confText(l i18n.Lang, text string) string {
	if l == i18n.En {
		return text
	}
	if rest, ok := strings.CutPrefix(text, refusedConfText); ok {
		return l.T(refusedConfText) + rest
	}
	for _, w := range confWords {
		text = strings.Replace(text, w, l.T(w), 1)
	}
	return text
}

// faultText translates a fault or action text.
func faultText(l i18n.Lang, text string) string {
	if l == i18n.En {
		return text
	}
	for _, t := range faultTexts {
		if t == text {
			return l.T(t)
		}
	}
	for _, f := range faultFormats {
		if t, ok := l.Reword(f, text); ok {
			return t
		}
	}
	for _, a := range faultAffixes {
		if mid, ok := strings.CutPrefix(text, a[0]); ok {
			if mid, ok := strings.CutSuffix(mid, a[1]); ok {
				return l.T(a[0]) + mid + l.T(a[1])
			}
		}
	}
	for _, p := range faultPrefixes {
		if rest, ok := strings.CutPrefix(text, p); ok {
			for _, w := range []string{i18n.N("(both ways)"), i18n.N("(one way)"), asLearnerText} {
				rest = strings.ReplaceAll(rest, w, l.T(w))
			}
			return l.T(p) + rest
		}
	}
	return text
}

// opStarts are the fixed words that start an answer the history keeps as
// text (a failover, a retry, a cancelled watch: etcd's error follows).
var opStarts = []string{i18n.N("failover: "), i18n.N("retry: "), i18n.N("watch cancelled: "),
	i18n.N("canceled by the client"), i18n.N("ok: keeping the lease alive"), i18n.N("keep-alive ended: ")}

// opText says a request's or an answer's text in l. A text that is what
// its operation says (describeOp, describeResult) is said again from the
// operation; others have their fixed words translated. Keys, values and
// etcd's errors stay as they are.
func opText(l i18n.Lang, op *Op, e Event) string {
	text := e.Text
	if l == i18n.En {
		return text
	}
	switch {
	case e.Kind == EvRequest && text == describeOp(i18n.En, op):
		return describeOp(l, op)
	case e.Kind == EvReply && text == describeResult(i18n.En, op):
		return describeResult(l, op)
	}
	for _, p := range opStarts {
		if rest, ok := strings.CutPrefix(text, p); ok {
			return l.T(p) + rest
		}
	}
	return text
}

// snapshotWord is why a snapshot was taken (or that it was installed),
// marked for the catalog.
// snapshotBootstrap is why a member of a BootstrapRaft cluster starts
// with a snapshot.
var snapshotBootstrap = i18n.N("bootstrap")

func snapshotWord(why string) string {
	for _, w := range []string{i18n.N("manual"), i18n.N("automatic"), i18n.N("installed"), snapshotBootstrap} {
		if w == why {
			return w
		}
	}
	return why
}

// What becomes of data directories and hosts (datadir.go, restore.go).
var (
	destroyText          = i18n.N("is lost for good: its host and its disks are gone")
	restartFromText      = i18n.N("restarts from data directory %s")
	snapshotSavedText    = i18n.N("saves a snapshot of its backend to %s (revision %d)")
	restoredText         = i18n.N("etcdutl snapshot restore %s writes %s on its host: member %x of a new cluster %x, at revision %d")
	lostNothingText      = i18n.N("the new cluster starts at revision %d; the old one had reached %d, and no write acknowledged after the snapshot is lost")
	lostWritesText       = i18n.N("the new cluster starts at revision %d; the old one had reached %d; writes acknowledged after the snapshot and gone: %d (%s)")
	quotaExceededText    = i18n.N("refuses a write: its database file is %d bytes, and the write would take it to its quota of %d bytes; it raises the NOSPACE alarm through raft")
	alarmRaisedText      = i18n.N("applies alarm %s raised by member %x: writes are refused until it is disarmed")
	alarmClearedText     = i18n.N("applies the disarm of alarm %s raised by member %x")
	defragText           = i18n.N("defragments its database: DB SIZE %d → %d bytes")
	forceDiscardText     = i18n.N("--force-new-cluster: discards %d uncommitted entries (indexes %d to %d) above its commit index %d")
	forceRemoveText      = i18n.N("--force-new-cluster: keeps member %x and cluster %x; commits the removal of %s (indexes %d to %d): a cluster of one")
	forceAloneText       = i18n.N("--force-new-cluster: keeps member %x and cluster %x, a cluster of one already")
	forceLostNothingText = i18n.N("the forced cluster keeps revision %d; the old one had reached %d, and no acknowledged write is lost")
	forceLostWritesText  = i18n.N("the forced cluster keeps revision %d; the old one had reached %d; acknowledged writes it never committed here, gone: %d (%s)")
	lostLeasesText       = i18n.N("leases granted after the snapshot are gone; its %d leases start again with a full TTL; every watch must start again (the revision went back)")
)
