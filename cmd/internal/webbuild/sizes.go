package webbuild

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"

	"github.com/raftsim/raftsim/cmd/internal/webserve"
	"github.com/raftsim/raftsim/raftsrc"
)

// Size is what one file of the page weighs: on disk, and as the server
// sends it to a browser that accepts gzip (measured through the
// server's own handler).
type Size struct {
	Name         string
	Bytes        int64
	Served       int64
	OnFirstFrame bool // the page needs it to draw its first frame
}

// Sizes are the page's files.
type Sizes []Size

// Lazy are the files the page fetches only when it needs them.
var Lazy = []string{fullFont, raftsrc.WebFile}

// Measure weighs the files of a built page.
func Measure(dir string) (Sizes, error) {
	h := webserve.Handler(dir)
	var out Sizes
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		req := httptest.NewRequest(http.MethodGet, "/"+rel, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return fmt.Errorf("serving %s: %d", rel, rec.Code)
		}
		lazy := false
		for _, l := range Lazy {
			lazy = lazy || l == rel
		}
		out = append(out, Size{Name: rel, Bytes: info.Size(), Served: int64(rec.Body.Len()), OnFirstFrame: !lazy})
		return nil
	})
	return out, err
}

// Total returns the bytes on disk and served of every file, or only of
// those the first frame needs.
func (s Sizes) Total(firstFrame bool) (bytes, served int64) {
	for _, f := range s {
		if firstFrame && !f.OnFirstFrame {
			continue
		}
		bytes += f.Bytes
		served += f.Served
	}
	return bytes, served
}

// String is a table of the sizes, in MB (10^6 bytes), as the README
// reports them.
func (s Sizes) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %10s %10s\n", "file", "on disk", "served")
	for _, f := range s {
		note := ""
		if !f.OnFirstFrame {
			note = "  (fetched only when needed)"
		}
		fmt.Fprintf(&b, "%-22s %10s %10s%s\n", f.Name, mb(f.Bytes), mb(f.Served), note)
	}
	all, allServed := s.Total(false)
	first, firstServed := s.Total(true)
	fmt.Fprintf(&b, "%-22s %10s %10s\n", "to the first frame", mb(first), mb(firstServed))
	fmt.Fprintf(&b, "%-22s %10s %10s\n", "in all", mb(all), mb(allServed))
	return b.String()
}

func mb(n int64) string {
	if n < 100_000 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.2f MB", float64(n)/1e6)
}
