# raftsim: `make run` opens the window on the default sandbox; `make test`
# runs every test (the GUI ones under xvfb-run when there is no display).
GO      ?= go
BIN     := bin
XVFB    := $(shell command -v xvfb-run 2>/dev/null)

.PHONY: all build run test test-short test-gui bench bench-gui deps fmt vet clean

all: build

build:
	$(GO) build -o $(BIN)/raftsim ./cmd/raftsim
	$(GO) build -o $(BIN)/raftsim-gui ./cmd/raftsim-gui

run: deps build
	$(BIN)/raftsim

# The GUI tests need a display. Without one they run under xvfb-run; with
# RAFTSIM_REQUIRE_GUI=1 (as in CI) a GUI test that finds no display fails
# instead of skipping.
test: deps build
	$(GO) vet ./...
	@if [ -z "$$DISPLAY" ] && [ -n "$(XVFB)" ]; then \
		echo "xvfb-run go test ./..."; \
		xvfb-run -a -s "-screen 0 1920x1080x24" $(GO) test -count=1 ./...; \
	else \
		$(GO) test -count=1 ./...; \
	fi

# test-gui runs only the window's tests (part of make test too).
test-gui: build
	@if [ -z "$$DISPLAY" ] && [ -n "$(XVFB)" ]; then \
		xvfb-run -a -s "-screen 0 1920x1080x24" $(GO) test -count=1 -v ./render/... ./cmd/raftsim/; \
	else \
		$(GO) test -count=1 -v ./render/... ./cmd/raftsim/; \
	fi

# bench-gui measures the window's frame time: 7 members, 300+ messages in flight.
bench-gui: build
	@if [ -z "$$DISPLAY" ] && [ -n "$(XVFB)" ]; then X="xvfb-run -a -s '-screen 0 1920x1080x24'"; fi; \
	eval $$X $(BIN)/raftsim-gui --bench-frames 300 --bench-baseline; \
	eval $$X $(BIN)/raftsim-gui --bench-frames 300

test-short:
	$(GO) test -short ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./sim/

# deps installs what a fresh Debian machine lacks to build and test
# raftsim (the X11 headers ebiten's GLFW needs, and Xvfb for the GUI tests).
deps:
	@bash .ci/deps.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

clean:
	rm -rf $(BIN)
