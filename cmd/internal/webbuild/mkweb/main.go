// Command mkweb builds raftsim's web page into a folder (`make web`:
// web/) and prints what its files weigh. See package webbuild.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/raftsim/raftsim/cmd/internal/webbuild"
)

func main() {
	out := flag.String("o", "web", "the folder to write")
	root := flag.String("root", ".", "raftsim's source tree")
	font := flag.String("font", "", "the CJK font file to subset (default: the one the window finds)")
	flag.Parse()
	sizes, err := webbuild.Build(webbuild.Options{Root: *root, Out: *out, Font: *font, Log: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mkweb:", err)
		os.Exit(1)
	}
	fmt.Printf("the page is in %s/:\n%s", *out, sizes)
}
