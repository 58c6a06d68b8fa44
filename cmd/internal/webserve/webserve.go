// Package webserve serves raftsim's web page (the folder `make web`
// builds) over HTTP: `raftsim serve-web`, and the tests that load the
// page in a browser. Files go gzipped to a client that accepts it, except
// those already compressed (the program ships as .xz and the whole font
// as .gz, and the page unpacks them itself), which go as they are.
package webserve

import (
	"bytes"
	"compress/gzip"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Compressible reports whether a file is worth gzipping on the way out.
func Compressible(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".gz", ".xz", ".png", ".jpg", ".jpeg", ".woff2", ".zip":
		return false
	}
	return true
}

// Handler serves the folder dir.
func Handler(dir string) http.Handler {
	return &handler{dir: dir, files: http.FileServer(http.Dir(dir)), cache: map[string]gzipped{}}
}

type handler struct {
	dir   string
	files http.Handler
	mu    sync.Mutex
	cache map[string]gzipped // by path: a file's gzipped bytes
}

type gzipped struct {
	mod  time.Time
	size int64
	data []byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-cache") // a rebuilt page shows at once
	w.Header().Set("X-Content-Type-Options", "nosniff")
	name := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		name = path.Join(name, "index.html")
	}
	if t := contentType(name); t != "" {
		w.Header().Set("Content-Type", t)
	}
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || !Compressible(name) || !acceptsGzip(r) {
		h.files.ServeHTTP(w, r)
		return
	}
	file := filepath.Join(h.dir, filepath.FromSlash(name))
	st, err := os.Stat(file)
	if err != nil || st.IsDir() {
		h.files.ServeHTTP(w, r)
		return
	}
	data, err := h.gzip(file, st)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Add("Vary", "Accept-Encoding")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	if r.Method == http.MethodGet {
		w.Write(data)
	}
}

// gzip returns a file gzipped, made once for each version of the file.
func (h *handler) gzip(file string, st os.FileInfo) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c, ok := h.cache[file]; ok && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
		return c.data, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // a valid level
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	h.cache[file] = gzipped{mod: st.ModTime(), size: st.Size(), data: b.Bytes()}
	return b.Bytes(), nil
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}

// contentType is a file's type by its name; the system's MIME tables may
// lack .wasm and .otf, and a .gz is the page's to unpack.
func contentType(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".wasm":
		return "application/wasm"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".otf":
		return "font/otf"
	case ".gz":
		return "application/gzip"
	case ".xz":
		return "application/x-xz"
	case ".yaml":
		return "application/yaml; charset=utf-8"
	}
	return mime.TypeByExtension(path.Ext(name))
}
