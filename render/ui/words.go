package ui

import (
	"strings"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/netmodel"
	"github.com/raftsim/raftsim/sim"
)

// The window's words for values that the simulation names in English:
// each is the key of its translation in the i18n catalog.

// DropWord is how a drop's reason is written beside its mark: "partition"
// for a cut link, and so on.
func DropWord(r netmodel.DropReason) string {
	switch r {
	case netmodel.DropCut:
		return i18n.N("partition")
	case netmodel.DropLoss:
		return i18n.N("loss")
	case netmodel.DropDown:
		return i18n.N("destination-down")
	case netmodel.DropQueue:
		return i18n.N("queue-full")
	case netmodel.DropUnknown:
		return i18n.N("unknown-destination")
	}
	return r.String()
}

// StatusWord is how an operation's status is written in its chip.
func StatusWord(s sim.OpStatus) string {
	switch s {
	case sim.OpPending:
		return i18n.N("pending")
	case sim.OpOK:
		return i18n.N("ok")
	case sim.OpError:
		return i18n.N("error")
	case sim.OpTimeout:
		return i18n.N("timeout")
	}
	return s.String()
}

// ProgressWord is how the leader's replication state for a follower is
// written: probe, replicate or snapshot.
func ProgressWord(state string) string {
	switch strings.ToLower(strings.TrimPrefix(state, "State")) {
	case "probe":
		return i18n.N("probe")
	case "replicate":
		return i18n.N("replicate")
	case "snapshot":
		return i18n.N("snapshot")
	}
	return strings.ToLower(strings.TrimPrefix(state, "State"))
}

// CommandWord is how an action on the cluster is named in the status
// line ("crash etcd-2 at 3.000s"). etcd's own verbs (put, get, delete,
// watch) stay as etcdctl spells them.
func CommandWord(k sim.CommandKind) string {
	switch k {
	case sim.CmdCrash:
		return i18n.N("crash")
	case sim.CmdRestart:
		return i18n.N("restart")
	case sim.CmdStall:
		return i18n.N("stall")
	case sim.CmdClock:
		return i18n.N("clock")
	case sim.CmdPartition:
		return i18n.N("partition")
	case sim.CmdIsolate:
		return i18n.N("isolate")
	case sim.CmdCut:
		return i18n.N("cut")
	case sim.CmdRestore:
		return i18n.N("restore")
	case sim.CmdLink:
		return i18n.N("link")
	case sim.CmdHeal:
		return i18n.N("heal")
	case sim.CmdCampaign:
		return i18n.N("campaign")
	case sim.CmdTransferLeader:
		return i18n.N("transfer leadership to")
	case sim.CmdAddMember:
		return i18n.N("add member")
	case sim.CmdPromote:
		return i18n.N("promote")
	case sim.CmdRemoveMember:
		return i18n.N("remove member")
	case sim.CmdSnapshot:
		return i18n.N("snapshot")
	}
	return string(k)
}
