package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/weblink"
)

// linkCmd prints a link that opens a scenario file, or a lesson, in the
// web page: what u (copy link) makes in the window, for a file on disk
// (a session saved with s, a scenario of one's own).
func linkCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	flags := newFlags("link", stderr)
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: raftsim link FILE|NAME [--base URL] [--at DUR] [--compare KEY=VALUE]\n\n"+
			"Prints a link that opens a scenario file (the scenario goes in the link) or a built-in lesson in the web page.\n\n%s", flags.FlagUsages())
	}
	base := flags.String("base", "", "the page's address (default: $RAFTSIM_WEB_URL, else raftsim serve-web's "+weblink.DefaultBase+")")
	at := flags.Duration("at", 0, "open at this virtual time, paused there")
	compares := flags.StringArray("compare", nil, "KEY=VALUE: the page shows the scenario as written and with the setting side by side (twice: four panes)")
	if err := parseFlags(flags, args); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		flags.Usage()
		return badInput("link: want exactly one FILE or lesson NAME")
	}
	if *at < 0 {
		return badInput("link: --at %s: time only goes forward", *at)
	}
	if err := guiflags.CheckStartAt("link: --at", *at); err != nil {
		return badInput("%v", err)
	}
	if *base == "" {
		*base = os.Getenv("RAFTSIM_WEB_URL")
	}
	if *base == "" {
		*base = weblink.DefaultBase
	}
	name := flags.Arg(0)
	if err := checkLinkCompare(name, *compares); err != nil {
		return err
	}
	data, err := scenarios.ReadFileLimited(name, name, weblink.MaxScenarioBytes, "a scenario file")
	if errors.Is(err, fs.ErrNotExist) {
		// A lesson: the page has it, the link names it.
		if _, lerr := scenarios.Load(name); lerr != nil {
			return &exitError{code: exitBadInput, err: lerr}
		}
		u, err := url.Parse(*base)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return badInput("link: --base %q: want an absolute URL, like %s", *base, weblink.DefaultBase)
		}
		q := url.Values{"lesson": {name}}
		if len(*compares) > 0 {
			q["compare"] = *compares
		}
		if *at > 0 {
			q.Set(weblink.ParamTime, at.String())
		}
		u.RawQuery = q.Encode()
		fmt.Fprintln(stdout, u)
		return nil
	}
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	if _, err := scenarios.Parse(name, data); err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	link, err := weblink.Link(*base, data, *at)
	if err != nil {
		return badInput("link: %v", err)
	}
	link = withCompare(link, *compares)
	fmt.Fprintln(stdout, link)
	return nil
}
