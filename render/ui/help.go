package ui

import "github.com/raftsim/raftsim/i18n"

// HelpSection is a part of the help overlay: a heading and its lines,
// each a key (or "") and what it does. Other parts of the window (the
// presenter) add their own.
type HelpSection struct {
	Title string
	Lines [][2]string
}

// HelpSections returns the help overlay's sections in a language: the
// keyboard's, then extra (the presenter's), then the selected member's,
// the mouse's and the command box's.
func HelpSections(lang i18n.Lang, extra ...HelpSection) []HelpSection {
	var keys, member, mouse, box HelpSection
	keys.Title = lang.T("Keyboard")
	for _, k := range GlobalKeys {
		keys.Lines = append(keys.Lines, [2]string{k.Key, lang.T(k.What)})
	}
	member.Title = lang.T("On the selected member (or in its menu)")
	for _, k := range MemberActions {
		member.Lines = append(member.Lines, [2]string{k.Key, lang.T(k.Label)})
	}
	mouse.Title = lang.T("Mouse")
	for _, m := range MouseHelp {
		mouse.Lines = append(mouse.Lines, [2]string{"", lang.T(m)})
	}
	box.Title = lang.T("Command box (: or `)")
	for _, k := range BoxKeys {
		box.Lines = append(box.Lines, [2]string{k.Key, lang.T(k.What)})
	}
	box.Lines = append(box.Lines, [2]string{"", lang.T("the other shortcuts wait while it is open (F12 still works)")})
	out := []HelpSection{keys}
	out = append(out, extra...)
	return append(out, member, mouse, box)
}
