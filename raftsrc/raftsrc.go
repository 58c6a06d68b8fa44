// Package raftsrc holds the source of the raft library raftsim runs,
// go.etcd.io/raft/v3 v3.7.0, embedded and compressed (about 80 kB), with
// its Apache-2.0 LICENSE, so that a citation of raft's code (sim's why.go)
// can show the function around the cited line, and so that the decisions
// raft does not log can be cited by the line that makes them, found by
// its text rather than by a number that a new raft version would move.
//
// The archive is generated (`go generate ./raftsrc/`, from the module
// cache) and checked against the module cache by the package's test.
package raftsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

//go:generate go run ../cmd/internal/raftsrcgen raft.tar.gz

// Module and Version name the source the archive holds.
const (
	Module  = "go.etcd.io/raft/v3"
	Version = "v3.7.0"
)

// Keeps reports whether the archive holds the module's file (or directory)
// at rel, a slash-separated path inside the module.
func Keeps(rel string, dir bool) bool {
	if dir {
		switch rel {
		case "raftpb", "rafttest", "tla", "scripts", "testdata", "CHANGELOG":
			return false
		}
		return !strings.HasPrefix(path.Base(rel), ".")
	}
	if rel == "LICENSE" {
		return true
	}
	return strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go")
}

// Build builds the archive of the raft module in dir: its files that Keeps
// keeps, as a gzipped tar with sorted names and no times, so that the same
// module gives the same bytes.
func Build(dir string) ([]byte, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case d.IsDir() && !Keeps(rel, true):
			return filepath.SkipDir
		case !d.IsDir() && Keeps(rel, false):
			names = append(names, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Source is raft's source, a file's lines by its path in the module.
type Source struct {
	files map[string][]string
	funcs map[string][]span // a file's function declarations, parsed once
	mu    sync.Mutex
}

type span struct {
	name        string
	first, last int // 1-based lines, inclusive
}

var embedded struct {
	mu      sync.Mutex
	src     *Source
	err     error
	fetched bool
}

// Fetch, when set, is called once, the first time the source is asked for
// in a build that holds none (the web page's: see embed_js.go): it fetches
// the archive (raft-source.tar.gz beside the page) and hands it to Provide.
// Until then Embedded reports ErrLoading.
var Fetch func()

// ErrLoading is Embedded's error while a build without the source waits
// for Fetch to bring it.
var ErrLoading = errors.New("raft's source is loading")

// Embedded is the source embedded in the binary, or provided (Provide).
func Embedded() (*Source, error) {
	e := &embedded
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.src != nil || e.err != nil {
		return e.src, e.err
	}
	if archive == nil {
		if Fetch == nil {
			return nil, errors.New("raft's source is not in this build (the web page leaves it out to keep its first frame small)")
		}
		if !e.fetched {
			e.fetched = true
			Fetch()
		}
		return nil, ErrLoading
	}
	e.src, e.err = Open(archive)
	return e.src, e.err
}

// Provide gives a build without the embedded source its archive, fetched
// (the bytes of raft-source.tar.gz, or the tar already unpacked); err is
// why the fetch failed, which Embedded then reports.
func Provide(data []byte, err error) {
	e := &embedded
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.src != nil {
		return
	}
	if err != nil {
		e.err = fmt.Errorf("raft's source did not load: %w", err)
		return
	}
	e.src, e.err = Open(data)
}

// Archive is the embedded archive's bytes (for the page to serve).
func Archive() []byte { return archive }

// Open reads an archive such as the embedded one, gzipped or not (a
// browser may have unpacked it on the way).
func Open(data []byte) (*Source, error) {
	var r io.Reader = bytes.NewReader(data)
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("raft's source: %w", err)
		}
		r = zr
	}
	s := &Source{files: map[string][]string{}, funcs: map[string][]span{}}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return s, nil
		}
		if err != nil {
			return nil, fmt.Errorf("raft's source: %w", err)
		}
		b, err := io.ReadAll(io.LimitReader(tr, 4<<20))
		if err != nil {
			return nil, fmt.Errorf("raft's source: %s: %w", h.Name, err)
		}
		s.files[h.Name] = strings.Split(string(b), "\n")
	}
}

// Lines is a file's lines (line n is Lines(f)[n-1]).
func (s *Source) Lines(file string) ([]string, bool) {
	l, ok := s.files[file]
	return l, ok
}

// Files lists the archive's files, sorted.
func (s *Source) Files() []string {
	out := make([]string, 0, len(s.files))
	for f := range s.files {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// License is raft's LICENSE, whose notice its source keeps.
func (s *Source) License() string { return strings.Join(s.files["LICENSE"], "\n") }

// Func is the function declaration around line n of file: its name as the
// runtime prints it ("(*raft).Step", "stepLeader") and its first and last
// lines.
func (s *Source) Func(file string, n int) (name string, first, last int, ok bool) {
	for _, sp := range s.spans(file) {
		if sp.first <= n && n <= sp.last {
			return sp.name, sp.first, sp.last, true
		}
	}
	return "", 0, 0, false
}

// Find is the line of file, inside function fn (as Func names it), whose
// text, trimmed, is code.
func (s *Source) Find(file, fn, code string) (int, bool) {
	lines := s.files[file]
	for _, sp := range s.spans(file) {
		if sp.name != fn {
			continue
		}
		for n := sp.first; n <= sp.last && n <= len(lines); n++ {
			if strings.TrimSpace(lines[n-1]) == code {
				return n, true
			}
		}
	}
	return 0, false
}

func (s *Source) spans(file string) []span {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sp, ok := s.funcs[file]; ok {
		return sp
	}
	var out []span
	lines, ok := s.files[file]
	if ok {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, file, strings.Join(lines, "\n"), parser.SkipObjectResolution)
		if err == nil {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok {
					continue
				}
				out = append(out, span{name: funcName(fd), first: fset.Position(fd.Pos()).Line, last: fset.Position(fd.End()).Line})
			}
		}
	}
	s.funcs[file] = out
	return out
}

// funcName names a declaration as runtime.Frame.Function does after its
// package: "(*raft).Step", "raftLog.String" for a value receiver, "hup".
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if ix, ok := t.(*ast.IndexExpr); ok { // a generic receiver
		t = ix.X
	}
	switch r := t.(type) {
	case *ast.StarExpr:
		x := r.X
		if ix, ok := x.(*ast.IndexExpr); ok {
			x = ix.X
		}
		if id, ok := x.(*ast.Ident); ok {
			return "(*" + id.Name + ")." + fd.Name.Name
		}
	case *ast.Ident:
		return r.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// WebFile is the archive's name beside the web page, which fetches it on
// demand (cmd/internal/webbuild writes it, cmd/raftsim-gui fetches it).
const WebFile = "raft-source.tar.gz"
