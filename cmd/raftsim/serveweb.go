package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/raftsim/raftsim/cmd/internal/webserve"
)

// serveWebCmd serves the web page (the folder `make web` builds) over
// HTTP, gzipped, on loopback unless told otherwise. It is not `raftsim
// serve`, which speaks etcd's gRPC wire.
func serveWebCmd(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve-web", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: raftsim serve-web [--addr 127.0.0.1:8080] [--dir web]\n\n"+
			"Serves raftsim's web page (make web builds it into web/) over HTTP, and prints its address.\n"+
			"Any static server can host the folder as well.\n\n%s", fs.FlagUsages())
	}
	addr := fs.String("addr", "127.0.0.1:8080", "the address to listen on (host:port); loopback by default, so that only this machine can open the page")
	dir := fs.String("dir", "", "the page's folder (default: web/ here, else the web/ beside the directory of this program, as make builds it)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return badInput("serve-web: unexpected arguments %q", fs.Args())
	}
	folder, err := webFolder(*dir)
	if err != nil {
		return &exitError{code: exitBadInput, err: err}
	}
	l, err := net.Listen("tcp", *addr) // 127.0.0.1:8080 unless --addr names another, which is said below
	if err != nil {
		return &exitError{code: exitBadInput, err: fmt.Errorf("serve-web: %v", err)}
	}
	url := "http://" + l.Addr().String() + "/"
	fmt.Fprintf(stdout, "raftsim serve-web: serving %s at %s (Ctrl-C stops it)\n", folder, url)
	fmt.Fprintf(stdout, "  the sandbox:        %s\n", url)
	fmt.Fprintf(stdout, "  a lesson:           %s?lesson=split-brain\n", url)
	fmt.Fprintf(stdout, "  for the projector:  %s?lesson=split-brain&lang=zh&present=1\n", url)
	fmt.Fprintf(stdout, "  the lesson picker:  %s?lesson\n", url)
	if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintf(stdout, "  NB: %s is not loopback: other machines can open the page too\n", tcp.IP)
	}
	srv := &http.Server{Handler: webserve.Handler(folder), ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(l)
}

// webFolder finds the page's folder: dir, or web/ in the working
// directory, or the web/ beside the directory of this program (bin/../web).
func webFolder(dir string) (string, error) {
	var tried []string
	try := func(d string) (string, bool) {
		tried = append(tried, d)
		_, err := os.Stat(filepath.Join(d, "raftsim.wasm.xz"))
		return d, err == nil
	}
	if dir != "" {
		if d, ok := try(dir); ok {
			return d, nil
		}
		return "", fmt.Errorf("serve-web: %s has no raftsim.wasm.xz: build the page first (make web)", dir)
	}
	if d, ok := try("web"); ok {
		return d, nil
	}
	if exe, err := os.Executable(); err == nil {
		if d, ok := try(filepath.Join(filepath.Dir(filepath.Dir(exe)), "web")); ok {
			return d, nil
		}
	}
	return "", fmt.Errorf("serve-web: no built page in %v: build it with make web, or say where it is with --dir", tried)
}
