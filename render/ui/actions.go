package ui

// Action is something the user asks for, by button, menu, or key.
type Action uint8

// The actions.
const (
	ActNone Action = iota
	ActPlayPause
	ActStepEvent
	ActStepDelivery
	ActSlower
	ActFaster
	ActHeal
	ActUndo
	ActSave
	ActHelp
	ActScreenshot
	ActSeekBack
	ActSeekForward

	// Acting on the selected member.
	ActCrash
	ActRestart
	ActStall
	ActCampaign
	ActTransfer
	ActIsolate
	ActRemove
	ActPromote
	ActSnapshot
	ActPut
	ActGetLinear
	ActGetSerial
	ActAddMember
	ActAddLearner
)

// MemberActions are the entries of a member's menu, with their keys.
var MemberActions = []struct {
	Action Action
	Label  string
	Key    string
}{
	{ActCrash, "crash", "x"},
	{ActRestart, "restart", "r"},
	{ActStall, "stall for 2s", "t"},
	{ActCampaign, "campaign now", "c"},
	{ActTransfer, "transfer leadership here", "l"},
	{ActIsolate, "isolate", "i"},
	{ActRemove, "remove from cluster", "d"},
	{ActPromote, "promote learner", "o"},
	{ActSnapshot, "snapshot and compact", "k"},
	{ActPut, "put via its client", "p"},
	{ActGetLinear, "get, linearizable", "g"},
	{ActGetSerial, "get, serializable", "shift+g"},
	{ActAddMember, "add a member", "a"},
	{ActAddLearner, "add a learner", "shift+a"},
}

// GlobalKeys are the shortcuts that need no member, for the help overlay.
var GlobalKeys = []struct{ Key, What string }{
	{"space", "play / pause (and continue past a scenario's pause)"},
	{"n", "step to the next event"},
	{"m", "step to the next message delivery"},
	{"+ / -", "faster / slower (1/1000× … 100×)"},
	{"← / →", "seek back / forward 100ms"},
	{"h", "heal all links"},
	{"z", "undo the last action (a fork too)"},
	{"s", "save the session as a scenario YAML"},
	{"F12", "save a screenshot PNG"},
	{"1 … 9", "select a member"},
	{"escape", "close the menu / deselect"},
	{": or `", "the command box: etcdctl on this cluster"},
	{"?", "this help"},
}

// BoxKeys are the command box's keys, for the help overlay.
var BoxKeys = []struct{ Key, What string }{
	{"Enter", "run the line: put foo bar · endpoint status -w table · help"},
	{"↑ / ↓", "earlier / later lines (history)"},
	{"PgUp / PgDn", "scroll the output back / forward (or the mouse wheel)"},
	{"Esc", "close the box; the other shortcuts work again"},
}

// MouseHelp explains the mouse, for the help overlay.
var MouseHelp = []string{
	"click a member: its menu (crash, restart, stall, campaign, …)",
	"drag member → member: cut the link both ways",
	"shift-drag: cut it one way only",
	"click a cut (the red × on a link) to restore it",
	"click a message: show its fields",
	"click an apiserver box: put / get through it",
	"click or drag the timeline: go back in time;",
	"   acting in the past forks the future (undo brings it back)",
}
