//go:build !js

package main

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// clipboardPrograms are the programs that put standard input on the
// clipboard, in the order they are tried: Wayland's, X11's two, macOS's
// and Windows's. (ebiten has no clipboard.)
var clipboardPrograms = [][]string{
	{"wl-copy"},
	{"xclip", "-selection", "clipboard"},
	{"xsel", "--clipboard", "--input"},
	{"pbcopy"},
	{"clip.exe"},
}

// copyToClipboard puts text on the clipboard with the first clipboard
// program found that works, and returns its name.
func copyToClipboard(text string) (string, error) {
	tried := []string{}
	for _, p := range clipboardPrograms {
		if p[0] == "wl-copy" && os.Getenv("WAYLAND_DISPLAY") == "" || p[0] == "pbcopy" && runtime.GOOS != "darwin" {
			continue
		}
		path, err := exec.LookPath(p[0])
		if err != nil {
			tried = append(tried, p[0])
			continue
		}
		cmd := exec.Command(path, p[1:]...)
		cmd.Stdin = strings.NewReader(text)
		if err := cmd.Run(); err != nil {
			return "", errors.New(p[0] + ": " + err.Error())
		}
		return p[0], nil
	}
	return "", errors.New("none of " + strings.Join(tried, ", ") + " is installed")
}
