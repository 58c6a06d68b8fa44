package ui

import (
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/sim"
)

// LegendIcon is what a legend entry shows beside its words.
type LegendIcon uint8

// The legend's icons.
const (
	IconNone LegendIcon = iota // a heading
	IconRole
	IconTimer
	IconHost
	IconHostDown
	IconMessage
	IconDrop
	IconCutBoth
	IconCutOne
	IconPartition
	IconCommitted
	IconUncommitted
	IconConflict
	IconSnapshotted
	IconMatch
	IconNext
	IconCommitBar
	IconNamed
	IconTally
	IconMark
)

// LegendEntry is one line of the legend: a heading, or an icon and what
// it means.
type LegendEntry struct {
	Icon  LegendIcon
	Label string // English, the catalog's key
	Role  sim.Role
	Msg   pb.MessageType
	Mark  MarkKind
}

// Heading reports whether the entry is a heading.
func (e LegendEntry) Heading() bool { return e.Icon == IconNone }

// Legend lists what the legend says, in order.
func Legend() []LegendEntry {
	var out []LegendEntry
	out = append(out, LegendEntry{Label: i18n.N("Members (colour + shape)")})
	for _, r := range Roles {
		out = append(out, LegendEntry{Icon: IconRole, Role: r, Label: StyleOfRole(r).Label})
	}
	out = append(out,
		LegendEntry{Icon: IconTimer, Label: i18n.N("election timer")},
		LegendEntry{Icon: IconTally, Label: i18n.N("votes: granted, waiting, refused")},
		LegendEntry{Icon: IconHost, Label: i18n.N("host: a machine and all on it")},
		LegendEntry{Icon: IconHostDown, Label: i18n.N("host down: all on it is down")},
		LegendEntry{Label: i18n.N("Messages (hollow = reply)")})
	for _, t := range LegendMessages {
		out = append(out, LegendEntry{Icon: IconMessage, Msg: t, Label: StyleOfMessage(t).Label})
	}
	out = append(out,
		LegendEntry{Icon: IconDrop, Label: i18n.N("dropped (with its reason)")},
		LegendEntry{Label: i18n.N("Links")},
		LegendEntry{Icon: IconPartition, Label: i18n.N("partition: the sides' links are cut")},
		LegendEntry{Icon: IconCutBoth, Label: i18n.N("cut both ways")},
		LegendEntry{Icon: IconCutOne, Label: i18n.N("cut one way")},
		LegendEntry{Label: i18n.N("Log cells (number = term)")},
		LegendEntry{Icon: IconCommitted, Label: i18n.N("committed; bar = applied")},
		LegendEntry{Icon: IconUncommitted, Label: i18n.N("not yet committed")},
		LegendEntry{Icon: IconConflict, Label: i18n.N("conflicts with the leader")},
		LegendEntry{Icon: IconSnapshotted, Label: i18n.N("in a snapshot (log compacted)")},
		LegendEntry{Icon: IconCommitBar, Label: i18n.N("commit index (number: commit column)")},
		LegendEntry{Icon: IconNamed, Label: i18n.N("the entry the caption speaks of")},
		LegendEntry{Icon: IconMatch, Label: i18n.N("leader's Match for it")},
		LegendEntry{Icon: IconNext, Label: i18n.N("leader's Next for it")},
		LegendEntry{Label: i18n.N("Timeline")})
	for _, k := range MarkKinds {
		out = append(out, LegendEntry{Icon: IconMark, Mark: k.Kind, Label: k.Name})
	}
	return out
}
