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

// Handler serves the folder dir: its regular files (and directories'
// index.html) only, through os.Root, so that a symlink that leads out of
// the folder is never followed (it is 404, as a device, a FIFO or a
// socket in the folder is: opening a FIFO would block the request).
func Handler(dir string) http.Handler {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "the page's folder: "+err.Error(), http.StatusInternalServerError)
		})
	}
	return &handler{root: root, files: http.FileServerFS(root.FS()), cache: map[string]gzipped{}}
}

type handler struct {
	root  *os.Root
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
	rel := strings.TrimPrefix(name, "/")
	if rel == "" {
		rel = "."
	}
	st, err := h.root.Stat(rel) // follows links only inside the folder
	if err != nil || !(st.Mode().IsRegular() || st.IsDir()) {
		http.NotFound(w, r)
		return
	}
	if t := contentType(name); t != "" {
		w.Header().Set("Content-Type", t)
	}
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || !Compressible(name) || !acceptsGzip(r) {
		h.files.ServeHTTP(w, r)
		return
	}
	if st.IsDir() {
		h.files.ServeHTTP(w, r)
		return
	}
	data, err := h.gzip(rel, st)
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
// The lock guards the cache only: a slow file never holds up the others.
func (h *handler) gzip(file string, st os.FileInfo) ([]byte, error) {
	h.mu.Lock()
	c, ok := h.cache[file]
	h.mu.Unlock()
	if ok && c.mod.Equal(st.ModTime()) && c.size == st.Size() {
		return c.data, nil
	}
	raw, err := h.root.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression) // a valid level
	zw.Write(raw)
	if err := zw.Close(); err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.cache[file] = gzipped{mod: st.ModTime(), size: st.Size(), data: b.Bytes()}
	h.mu.Unlock()
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
