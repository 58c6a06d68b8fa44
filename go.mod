module github.com/raftsim/raftsim

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/cockroachdb/datadriven v1.0.2
	github.com/go-text/typesetting v0.2.0
	github.com/hajimehoshi/ebiten/v2 v2.8.8
	github.com/jezek/xgb v1.1.1
	github.com/pmezard/go-difflib v1.0.0
	github.com/spf13/pflag v1.1.0
	go.etcd.io/raft/v3 v3.7.0
	golang.org/x/image v0.30.0
	golang.org/x/term v0.24.0
	gonum.org/v1/plot v0.17.0
	google.golang.org/protobuf v1.36.11
	gopkg.in/yaml.v3 v3.0.1
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/ebitengine/gomobile v0.0.0-20240911145611-4856209ac325 // indirect
	github.com/ebitengine/hideconsole v1.0.0 // indirect
	github.com/ebitengine/purego v0.8.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	golang.org/x/sync v0.16.0 // indirect
	golang.org/x/sys v0.25.0 // indirect
	golang.org/x/text v0.28.0 // indirect
)
