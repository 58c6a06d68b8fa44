# raftsim: `make run` opens the window on the default sandbox; `make test`
# runs every test (the GUI ones under xvfb-run when there is no display).
GO      ?= go
BIN     := bin
# NB: whether xvfb-run is there is asked when a recipe runs, not when make
# starts: on a fresh machine `deps` installs it during the same make.
NEED_XVFB := [ -z "$$DISPLAY" ] && command -v xvfb-run >/dev/null

.PHONY: all build run web serve-web vet-wasm architecture swarm test test-short test-gui test-classroom test-classroom-slice kube-compare bench bench-ratio bench-gui screens-same bench-experiment limits limits-swarm fuzz fuzz-short deps fmt vet clean etcd-compare screenshots

all: build

build:
	$(GO) build -o $(BIN)/raftsim ./cmd/raftsim
	$(GO) build -o $(BIN)/raftsim-gui ./cmd/raftsim-gui

run: deps build
	$(BIN)/raftsim

# web builds the web page into web/: the window for js/wasm (gzipped),
# Go's wasm_exec.js, and the page's fonts (subset by fontTools), beside
# web/index.html. Any static server can host the folder; serve-web serves
# it on loopback.
web: deps
	$(GO) run ./cmd/internal/webbuild/mkweb -o web

serve-web: build web
	$(BIN)/raftsim serve-web

# architecture writes docs/architecture.md's import graph from `go list`
# again (TestArchitectureGraph fails when it is out of date).
architecture:
	$(GO) test -count=1 -run '^TestArchitectureGraph$$' ./cmd/internal/archdoc -update

# vet-wasm vets, for js/wasm, every package that builds there (all but
# cmd/internal/etcdcompare and kubecompare, which drive real etcd processes).
vet-wasm:
	GOOS=js GOARCH=wasm $(GO) vet $$($(GO) list ./... | grep -v -E '/cmd/internal/(etcdcompare|kubecompare)$$')

# The GUI tests need a display. Without one they run under xvfb-run; with
# RAFTSIM_REQUIRE_GUI=1 (as in CI) a GUI test that finds no display fails
# instead of skipping.
test: deps build vet-wasm
	$(GO) vet ./...
	@if $(NEED_XVFB); then \
		echo "xvfb-run go test ./..."; \
		xvfb-run -a -s "-screen 0 1920x1080x24" $(GO) test -count=1 -timeout 60m ./...; \
	else \
		$(GO) test -count=1 -timeout 60m ./...; \
	fi
	$(BIN)/raftsim swarm --seeds 1-200 --repro-dir $(BIN)/swarm-repro

# swarm runs the campaign the README reports: SEEDS (default 1-2000) of
# random faults and workloads on the unmodified simulator, every checker
# on. The report goes to standard output; the rate, in seeds a second, to
# standard error.
SEEDS ?= 1-2000
swarm: build
	$(BIN)/raftsim swarm --seeds $(SEEDS) --repro-dir $(BIN)/swarm-repro

# test-gui runs only the window's tests (part of make test too).
test-gui: build
	@if $(NEED_XVFB); then \
		xvfb-run -a -s "-screen 0 1920x1080x24" $(GO) test -count=1 -v ./render/... ./cmd/raftsim/; \
	else \
		$(GO) test -count=1 -v ./render/... ./cmd/raftsim/; \
	fi

# test-classroom runs the whole screen walk: every lesson, step by step,
# in English and Chinese, at 1920x1080 and 1024x768, scale 1 and 2, with
# --present, each screen read back whole by OCR (TestLessonScreens with
# RAFTSIM_SCREENS=all; make test skips it). Long: see docs/testing.md.
# A part of it: make test-classroom LESSONS=split-brain,watch
# SETTINGS=en/1024x768@2,zh/1920x1080@1 (either or both);
# make test-classroom-slice is the part CI runs (three lessons, two settings).
LESSONS ?= all
SETTINGS ?=
test-classroom: build
	@if $(NEED_XVFB); then X="xvfb-run -a -s '-screen 0 1920x1080x24'"; fi; \
	export RAFTSIM_SCREENS='$(LESSONS)' RAFTSIM_SCREEN_SETTINGS='$(SETTINGS)'; eval $$X $(GO) test -count=1 -v -timeout 300m -run "'^TestLessonScreens$$'" ./render/guitest/
test-classroom-slice:
	$(MAKE) test-classroom LESSONS=slice

# bench-gui measures the window's frame time: 7 members, 300+ messages in flight.
bench-gui: build
	@if $(NEED_XVFB); then X="xvfb-run -a -s '-screen 0 1920x1080x24'"; fi; \
	eval $$X $(BIN)/raftsim-gui --bench-frames 300 --bench-baseline; \
	eval $$X $(BIN)/raftsim-gui --bench-frames 300

# screens-same checks that this tree's window draws the same pictures as
# SCREENS_BASE's (main), pixel for pixel: every lesson at three times in
# English at 1920x1080@2 and Chinese at 1024x768@1, the benchmark's scene,
# the sandbox's overlays and two runs of frames (cmd/internal/screenssame;
# SCREENS_FLAGS=-walk adds the walk of every lesson). The base is built
# from a copy of its tree (-trimpath: the same binary each time, so its
# pictures are taken once); the pictures are kept per build in bin/screens.
SCREENS_BASE ?= main
screens-same: build
	@set -e; src=$$(mktemp -d); trap 'rm -rf "$$src"' EXIT; \
	git archive $(SCREENS_BASE) | tar -x -C "$$src"; \
	mkdir -p $(BIN)/screens-base; \
	(cd "$$src" && $(GO) build -trimpath -o $(CURDIR)/$(BIN)/screens-base/raftsim ./cmd/raftsim && \
		$(GO) build -trimpath -o $(CURDIR)/$(BIN)/screens-base/raftsim-gui ./cmd/raftsim-gui); \
	$(GO) build -o $(BIN)/screenssame ./cmd/internal/screenssame; \
	if $(NEED_XVFB); then X="xvfb-run -a -s '-screen 0 1920x1080x24'"; fi; \
	eval $$X $(BIN)/screenssame -base $(BIN)/screens-base -new $(BIN) -out $(BIN)/screens $(SCREENS_FLAGS)

# bench-memory measures the memory goals of issue 13, one benchmark per
# process (peak RSS is the process's): an hour of load (and a quarter and a
# half of it, to see that time is linear), and an idle virtual day.
bench-memory:
	$(GO) test -c -o $(BIN)/scenarios.test ./scenarios
	@for m in 15 30 60; do LOAD_MINUTES=$$m $(BIN)/scenarios.test -test.run '^$$' -test.bench '^BenchmarkLoadHour$$' -test.benchtime 1x | grep Benchmark | sed "s/^/$$m min: /"; done
	@$(BIN)/scenarios.test -test.run '^$$' -test.bench '^BenchmarkIdleDay$$' -test.benchtime 1x | grep Benchmark

# limits runs every documented maximum of docs/scenarios.md whole, each in
# a process of its own that must stay under 1 GiB, and prints its wall time
# and peak memory (TestLimits; make test runs it scaled down). It takes
# most of an hour.
# NB: the test's output goes to a file and is filtered from there, so that
# the recipe fails when the test does (a pipe into grep would end with
# grep's status: make's sh has no pipefail).
limits:
	out=$$(mktemp); RAFTSIM_LIMITS=full $(GO) test -count=1 -run '^TestLimits$$' -timeout 3h -v ./cmd/raftsim/ > $$out 2>&1; rc=$$?; \
	grep -E 'limits_test|^(--- |ok|FAIL)' $$out; rm -f $$out; exit $$rc

# limits-swarm runs TestLimitsSwarm for LIMITS_SWARM (1m, as CI runs it;
# 1h by hand): seeded hostile combinations around every limit and odd
# output paths, each refused up front or finishing within its budget.
# LIMITS_SWARM_SEED replays a seed. make test skips it.
LIMITS_SWARM ?= 1m
limits-swarm:
	out=$$(mktemp); RAFTSIM_LIMITS_SWARM=$(LIMITS_SWARM) RAFTSIM_LIMITS_SWARM_SEED=$(LIMITS_SWARM_SEED) $(GO) test -count=1 -run '^TestLimitsSwarm$$' -timeout 3h -v ./cmd/raftsim/ > $$out 2>&1; rc=$$?; \
	grep -E 'limitswarm_test.go:|^(--- |ok|FAIL)' $$out; rm -f $$out; exit $$rc

# The fuzz targets, as package:target. fuzz-short runs each for a few
# seconds (CI does); fuzz runs each for FUZZTIME, one after the other.
# FUZZMINIMIZE bounds the minimizing of each new input, in executions:
# Go's default (60s each) left the workers minimizing, at 0 executions a
# second, for most of a run (issue 24), and a bound in time is no better:
# when it runs out Go kills the worker process and starts another, which
# reads the corpus again (FuzzParse's workers lived 2 to 6 seconds each).
FUZZ := ./scenarios:FuzzParse ./scenarios:FuzzRun ./console:FuzzLine ./console:FuzzArgs ./trace:FuzzRead ./swarm:FuzzMerge ./snapshot:FuzzOpen
FUZZTIME ?= 10m
FUZZMINIMIZE ?= 100x
fuzz-short:
	@$(MAKE) --no-print-directory fuzz FUZZTIME=5s

# A run that fails with only "context deadline exceeded" and writes no
# failing input is Go's fuzzing coordinator stopping its workers as
# -fuzztime runs out (seen on FuzzMerge under load, 12,692 executions, no
# input written): it is said, not counted as a finding. Any other failure,
# and any failing input written to testdata/fuzz, fails.
fuzz:
	@out=$$(mktemp); trap 'rm -f "$$out" "$$out.rc"' EXIT; for t in $(FUZZ); do \
		echo "fuzz $$t for $(FUZZTIME)"; \
		{ $(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $${t%%:*}; echo $$? >"$$out.rc"; } 2>&1 | tee "$$out"; \
		if [ "$$(cat "$$out.rc")" != 0 ]; then \
			if grep -q 'Failing input written' "$$out" || ! grep -q 'context deadline exceeded' "$$out"; then exit 1; fi; \
			echo "fuzz $$t: ended by its deadline with no failing input (Go's coordinator), not a finding"; \
		fi; \
	done
# etcd-compare builds etcd v3.6.16 and etcdctl from the Go module proxy
# (once; cached in bin/etcd-v3.6.16) and runs the etcdctl sessions of
# cmd/internal/etcdcompare against a real three-member cluster on loopback,
# checking that it still prints the expected transcripts that raftsim is
# compared with (UPDATE=1 writes them from the real etcd instead), and the
# every-verb round trip with the real etcdctl's part (make test skips it).
ETCD_DIR := $(CURDIR)/$(BIN)/etcd-v3.6.16
etcd-compare:
	bash cmd/internal/etcdcompare/build-etcd.sh $(ETCD_DIR)
	RAFTSIM_ETCD=$(ETCD_DIR) $(GO) test -count=1 -timeout 30m -run 'TestRealEtcd|TestSimMatchesRealEtcd|TestWireMatchesRealEtcd|TestWireSnapshotSave|TestSnapshotsWithRealEtcd|TestWireProgressMatchesRealEtcd|TestWireKeepaliveMatchesRealEtcd|TestWireTxnDepthMatchesRealEtcd|TestWireQuotaMatchesRealEtcd|TestQuotaPerMemberMatchesRealEtcd' ./cmd/internal/etcdcompare/ $(if $(UPDATE),-update)
	RAFTSIM_ETCD=$(ETCD_DIR) $(GO) test -count=1 -run 'TestEveryVerbRoundTrip' ./cmd/raftsim/

# kube-compare runs one workload through a real kube-apiserver v1.34.4
# against a real three-member etcd v3.6.16 and against raftsim serve --tls,
# and prints list latency, GoAways and `Too large resource version` lines
# side by side (cmd/internal/kubecompare; docs/serve.md keeps the figures).
# It builds kube-apiserver once (KUBE_TOOL build KUBE_DIR: 6 minutes on an
# idle machine) and etcd once. Long (about 8 minutes): run by hand, not in
# CI. KUBE_FLAGS passes flags on, e.g. KUBE_FLAGS='-keep -only serve'.
KUBE_TOOL ?= $(CURDIR)/../shared/tools/kube-apiserver
KUBE_DIR ?= $(CURDIR)/$(BIN)/kube-apiserver-v1.34.4
KUBE_FLAGS ?=
kube-compare: build
	bash $(KUBE_TOOL) build $(KUBE_DIR)
	bash cmd/internal/etcdcompare/build-etcd.sh $(ETCD_DIR)
	$(GO) run ./cmd/internal/kubecompare -kube $(KUBE_DIR) -etcd $(ETCD_DIR) -raftsim $(BIN)/raftsim $(KUBE_FLAGS)

# screenshots regenerates the window's pictures in the README and docs/
# (docs/gui.md lists what each shows). They are taken in the window itself,
# at fixed virtual times, so the same build gives the same pictures.
SHOT = $(BIN)/raftsim-gui --paused
screenshots: build
	@if $(NEED_XVFB); then X="xvfb-run -a -s '-screen 0 1920x1080x24'"; fi; \
	set -e; \
	eval $$X $(SHOT) --at 1.0s:put:apiserver-1:/registry/pods/default/web:v1 \
		--at 1.8s:put:apiserver-2:/registry/pods/default/nginx:v1 \
		--at 1.75s:get-serializable:apiserver-3:/registry/pods/default/web \
		--screenshot-at 1.813s --out docs/images/sandbox.png; \
	eval $$X $(SHOT) play split-brain --screenshot-at 3.13s --out docs/images/split-brain.png; \
	eval $$X $(SHOT) --present --size 1920x1080 play split-brain --screenshot-at 1.21s --out docs/images/projector-split-brain.png; \
	eval $$X $(SHOT) --present --size 1920x1080 --lang zh play split-brain --screenshot-at 3.13s --out docs/images/projector-split-brain-zh.png; \
	eval $$X $(SHOT) --size 1280x720 --scale 1.5 play follower-forwarding --screenshot-at 0.4455s --out docs/images/projector-1280x720.png; \
	eval $$X $(SHOT) --size 1024x768 play leader-crash --screenshot-at 1.2774s --out docs/images/window-1024x768.png; \
	eval $$X $(SHOT) --screenshot-at 1s --input click:etcd-2 --out docs/images/member-menu.png; \
	eval $$X $(SHOT) --screenshot-at 1s --input key:: --input \"type:put foo bar\" --input key:enter \
		--input \"type:wait 50ms\" --input key:enter --input \"type:endpoint status -w table\" --input key:enter \
		--out docs/images/command-box.png; \
	eval $$X $(SHOT) play external-failover --screenshot-at 0.49s --out docs/images/external-failover.png

test-short:
	$(GO) test -short ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 ./sim/

# bench-ratio measures what docs/performance.md reports: RUNS runs of the
# benchmark pairs, one after the other, and the median of the per-run
# ratios of their CPU time an iteration (cpu-ns/op: the wall time of a
# shared machine is mostly the other processes'). Three ratios: an idle tick, sim over bare raft; a committed
# proposal, sim over bare raft (raft alone, instant in-order delivery); and
# a committed proposal, sim over bare etcd work (the same, plus every member
# applying the write to its MVCC store): the cost of the simulation itself.
# The machine is shared and noisy, so one run says little; the median of
# many says more.
RUNS ?= 15
bench-ratio:
	$(GO) test -c -o $(BIN)/sim.test ./sim
	@for i in $$(seq $(RUNS)); do \
		$(BIN)/sim.test -test.run '^$$' -test.bench '^Benchmark(Bare|BareEtcd|Sim)(IdleTick|Proposal)$$' -test.benchtime 1s; \
	done | awk '/^Benchmark/ { name = $$1; sub(/-[0-9]+$$/, "", name); sub(/^Benchmark/, "", name); \
		for (i = 2; i < NF; i++) if ($$(i+1) == "cpu-ns/op") v[name] = $$i; \
		if (name == "SimIdleTick") { add("idle", v["BareIdleTick"], v[name]) } \
		if (name == "SimProposal") { add("raft", v["BareProposal"], v[name]); add("etcd", v["BareEtcdProposal"], v[name]) } } \
		function add(w, bare, sim) { r[w] = r[w] " " sim / bare; b[w] = b[w] " " bare; s[w] = s[w] " " sim } \
		function med(list,   a, n, i, j, t) { n = split(list, a, " "); \
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } \
			return a[int((n + 1) / 2)] } \
		function line(w, what) { printf "%-42s bare %6.0f ns  sim %6.0f ns  sim/bare %.2fx  (CPU time; median of %d runs; ratios:%s)\n", \
			what, med(b[w]), med(s[w]), med(r[w]), split(r[w], x, " "), r[w] } \
		END { line("idle", "idle tick, sim/bare raft (goal 1.1x)"); line("raft", "proposal, sim/bare raft"); \
			line("etcd", "proposal, sim/bare etcd work (goal 1.25x)") }'

# bench-experiment times `raftsim experiment election-time` with its default
# flags (the paper's five ranges, 1,000 trials each, one worker per core)
# EXP_RUNS times, one after the other, and prints the median wall time. The
# goal is 1.5s on a quiet 2-core machine. (The per-trial cost is
# BenchmarkTrial in ./experiment.)
EXP_RUNS ?= 9
bench-experiment: build
	@dir=$$(mktemp -d); for i in $$(seq $(EXP_RUNS)); do \
		s=$$(date +%s%N); $(BIN)/raftsim experiment election-time --out $$dir >/dev/null || exit 1; e=$$(date +%s%N); \
		echo "$$(( (e - s) / 1000000 ))"; \
	done | sort -n | awk '{ v[NR] = $$1; all = all " " $$1 "ms" } \
		END { printf "election-time, default flags: median %.2fs wall over %d runs (sorted:%s)\n", v[int((NR + 1) / 2)] / 1000, NR, all }'; \
	rm -rf $$dir

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
