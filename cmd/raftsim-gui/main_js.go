//go:build js

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/weblink"
)

// main is the web page's: the link's query stands for the command line
// (guiflags.FromQuery), and what goes wrong is said on the page, where a
// class sees it, as well as in the browser's console.
func main() {
	page, err := newPage()
	if err != nil {
		fmt.Fprintln(os.Stderr, "raftsim:", err)
		os.Exit(exitFailed)
	}
	query, err := url.ParseQuery(strings.TrimPrefix(page.location("search"), "?"))
	var args []string
	var scenario []byte
	if err == nil {
		args, scenario, err = guiflags.FromQuery(query, weblink.Decode)
	}
	if err != nil {
		page.fail("This link cannot be opened: " + err.Error() + "\n\n" + linkHelp())
		os.Exit(exitBadInput)
	}
	var msgs bytes.Buffer
	code := run(args, os.Stdout, io.MultiWriter(os.Stderr, &msgs), page.host(scenario))
	if code != exitOK {
		text := strings.ReplaceAll(strings.TrimSpace(msgs.String()), "raftsim-gui: ", "")
		if text == "" {
			text = fmt.Sprintf("raftsim stopped (exit code %d).", code)
		}
		page.fail(text)
	}
	os.Exit(code)
}

// linkHelp lists what a link may say.
func linkHelp() string {
	var b strings.Builder
	b.WriteString("A link may carry:\n")
	for _, p := range guiflags.QueryParams {
		fmt.Fprintf(&b, "  %-9s %s\n", p.Name, p.What)
	}
	return b.String()
}

var errNoPage = errors.New("this program runs in raftsim's web page (web/index.html), which it did not find")
