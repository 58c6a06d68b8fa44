package ui

import "github.com/raftsim/raftsim/i18n"

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
	ActLegend    // show or hide the legend (L)
	ActPresent   // the projector layout on or off (P)
	ActFixedRate // adaptive pace or a fixed rate
	ActMenu      // the toolbar's menu: the buttons that gave way

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

	ActCopyLink // a link to this moment, for the web page (link.go)
)

// MemberActions are the entries of a member's menu, with their keys.
var MemberActions = []struct {
	Action Action
	Label  string
	Key    string
}{
	{ActCrash, i18n.N("crash"), "x"},
	{ActRestart, i18n.N("restart"), "r"},
	{ActStall, i18n.N("stall for 2s"), "t"},
	{ActCampaign, i18n.N("campaign now"), "c"},
	{ActTransfer, i18n.N("transfer leadership here"), "l"},
	{ActIsolate, i18n.N("isolate"), "i"},
	{ActRemove, i18n.N("remove from cluster"), "d"},
	{ActPromote, i18n.N("promote learner"), "o"},
	{ActSnapshot, i18n.N("snapshot and compact"), "k"},
	{ActPut, i18n.N("put via its client"), "p"},
	{ActGetLinear, i18n.N("get, linearizable"), "g"},
	{ActGetSerial, i18n.N("get, serializable"), "shift+g"},
	{ActAddMember, i18n.N("add a member"), "a"},
	{ActAddLearner, i18n.N("add a learner"), "shift+a"},
}

// GlobalKeys are the shortcuts that need no member, for the help overlay.
var GlobalKeys = []struct{ Key, What string }{
	{"space", i18n.N("play / pause (in a lesson: the next step)")},
	{"b", i18n.N("play / pause, in a lesson too")},
	{"f", i18n.N("adaptive pace / fixed rate")},
	{"n", i18n.N("step to the next event")},
	{"m", i18n.N("step to the next message delivery")},
	{"+ / -", i18n.N("faster / slower (adaptive: ×2 ÷2; fixed: 1/1000× … 100×)")},
	{"← / →", i18n.N("seek back / forward 100ms")},
	{"h", i18n.N("heal all links")},
	{"z", i18n.N("undo the last action (a fork too)")},
	{"s", i18n.N("save the session as a scenario YAML")},
	{"u", i18n.N("copy a link that opens this moment in the web page")},
	{"F12", i18n.N("save a screenshot PNG")},
	{"1 … 9", i18n.N("select a member (in a lesson: a chapter)")},
	{"escape", i18n.N("close the menu / deselect")},
	{": / `", i18n.N("the command box: etcdctl on this cluster")},
	{"P", i18n.N("the projector layout, on or off")},
	{"L", i18n.N("the legend, shown or hidden")},
	{"?", i18n.N("this help")},
}

// PresenterKeys are the keys of a lesson, for the help overlay. They work
// with a presentation clicker (PageDown, PageUp).
var PresenterKeys = []struct{ Key, What string }{
	{"Space PgDn", i18n.N("the next step; at a question, continue")},
	{"PgUp", i18n.N("the step before, made again from its start")},
	{"1 … 9", i18n.N("go to that chapter")},
	{"Tab", i18n.N("the lesson so far: chapters and captions")},
	{"n / m", i18n.N("next event / delivery, at a question too")},
	{"Enter", i18n.N("after acting on the cluster: resume the lesson")},
	{"?", i18n.N("this help (time stands still)")},
}

// BoxKeys are the command box's keys, for the help overlay.
var BoxKeys = []struct{ Key, What string }{
	{"Enter", i18n.N("run the line: put foo bar · endpoint status -w table · help")},
	{"↑ / ↓", i18n.N("earlier / later lines (history)")},
	{"PgUp / PgDn", i18n.N("scroll the output back / forward (or the mouse wheel)")},
	{"Esc", i18n.N("close the box; the other shortcuts work again")},
}

// MouseHelp explains the mouse, for the help overlay.
var MouseHelp = []string{
	i18n.N("click a member: its menu (crash, restart, stall, campaign, …)"),
	i18n.N("drag member → member: cut the link both ways"),
	i18n.N("shift-drag: cut it one way only"),
	i18n.N("click a cut (the red × on a link) to restore it"),
	i18n.N("click a message: show its fields"),
	i18n.N("click an apiserver box: put / get through it"),
	i18n.N("click or drag the timeline: go back in time; acting in the past forks the future (undo brings it back)"),
}
