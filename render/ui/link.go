package ui

// copyLink is u: the host makes a link that opens the moment on screen
// in the web page (the scenario s would save, and the time shown), and
// puts it where the user can paste it. A student sends it to the teacher,
// whose page opens the same moment.
func (a *App) copyLink() {
	if a.CopyLink == nil {
		a.Status = a.Lang.T("copying a link is not available here")
		return
	}
	msg, err := a.CopyLink(a.S)
	if err != nil {
		a.Status = a.Lang.T("copying a link failed: ") + err.Error()
		return
	}
	a.Status = msg
}
