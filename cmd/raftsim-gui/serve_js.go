//go:build js

package main

import (
	"errors"
	"io"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/render/ui"
)

// served is `raftsim serve --window` (serve.go), which the page cannot
// be: a browser tab opens no port. Leaving it out keeps etcd's wire
// (gRPC, HTTP/2, TLS and x509) out of the page's program.
type served struct{}

func serveSession([]string, uint64, guiflags.Serve, io.Writer) (*ui.Session, *served, string, error) {
	return nil, nil, "", errors.New("serve: the web page cannot open a port; run raftsim serve --window on the desktop")
}

func (*served) hook(*ui.App) {}

func (*served) close(*ui.Session, io.Writer) error { return nil }
