//go:build !js

package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/outfile"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
	"github.com/raftsim/raftsim/wire"
)

// served is `raftsim serve --window`: the session on screen, served on
// etcd's wire. The window owns the world: the App's Update hands the
// session to hook once a frame, which applies the requests that arrived
// (as commands of the session's log) and answers what has ended.
type served struct {
	front *wire.Front
	srv   *wire.Server
	fl    guiflags.Serve
	// The wall clock that virtual time follows: it reached base at start.
	// (The window's own clock counts frames, which fall behind the wall
	// on a busy machine; real clients keep wall-clock deadlines.)
	start time.Time
	base  sim.Time
	last  sim.Time
	// The endpoints open at the window's first frame: until the window
	// owns the world, nobody would take a request in.
	plan *wire.Plan
	out  io.Writer
}

// serveSession builds the cluster of args (a scenario, or the sandbox),
// lets it start as raftsim serve does, and serves it.
func serveSession(args []string, seed uint64, fl guiflags.Serve, stdout io.Writer) (*ui.Session, *served, string, error) {
	cfg, title := sim.SandboxConfig(), "serve: sandbox"
	var scenario *scenarios.Scenario
	if len(args) == 1 {
		s, err := scenarios.Load(args[0])
		if err != nil {
			return nil, nil, "", err
		}
		cfg, title, scenario = s.Config, "serve: "+args[0], s
	}
	if seed != 0 {
		cfg.Seed = seed
	}
	// The file the session ends in is checked before serving, as raftsim
	// serve checks it: a session is not served only to be lost at exit.
	if err := outfile.Check(fl.Save); err != nil {
		return nil, nil, "", fmt.Errorf("--save: %w", err)
	}
	plan, err := wire.PlanEndpoints(&cfg, fl.Port, fl.TLS)
	if ue := (*wire.ClientURLError)(nil); errors.As(err, &ue) && scenario != nil {
		if pos, ok := scenario.ConfigPos["cluster.client_urls."+ue.Member]; ok {
			return nil, nil, "", fmt.Errorf("%s: %w", pos, err)
		}
	}
	if err != nil {
		return nil, nil, "", err
	}
	sess, err := ui.NewSession(cfg)
	if err != nil {
		return nil, nil, "", err
	}
	// A cluster a client dials is already running (wire.StartCluster).
	for !sess.World().Started() {
		next, ok := sess.NextAt()
		if !ok || next > sim.Time(10e9) {
			return nil, nil, "", fmt.Errorf("the cluster did not start within 10s")
		}
		if _, err := sess.AdvanceTo(next); err != nil {
			return nil, nil, "", err
		}
	}
	fmt.Fprintf(stdout, "raftsim serve --window: seed=%d; the endpoints open with the window\n", cfg.Seed)
	return sess, &served{front: wire.NewFront(1024), fl: fl, plan: plan, out: stdout}, title, nil
}

// hook is App.External: virtual time catches up with the wall clock at the
// rate (unless time is held: paused, the help, a seek; the wall clock then
// starts again from where the window is), what arrived is applied at the
// frame's instant, what ended is answered, and each endpoint follows its
// member.
func (s *served) hook(a *ui.App) {
	sess := a.S
	if s.srv == nil {
		srv, err := wire.Listen(s.front, s.plan.Endpoints)
		if err != nil {
			a.Status = "raftsim serve: " + err.Error()
			fmt.Fprintln(s.out, a.Status)
			a.External = nil
			return
		}
		s.srv = srv
		s.plan.Describe(s.out)
	}
	wall := time.Now()
	if !a.TimeRuns() || sess.Now() < s.last || sess.InPast() || s.start.IsZero() {
		s.start, s.base = wall, sess.Now()
	} else if t := s.base + sim.Time(float64(wall.Sub(s.start))*s.fl.Rate); t > sess.Now() {
		if _, err := sess.AdvanceTo(t); err != nil {
			a.Status = err.Error()
		}
	}
	s.last = sess.Now()
	if s.front.Pending() {
		_, _ = sess.Absorb(func(w *sim.World) error { return s.front.Take(w, nil) })
	}
	w := sess.World()
	s.front.Deliver(w)
	_ = s.srv.Follow(w)
}

// close stops serving and saves the session, as raftsim serve does on
// exit.
func (s *served) close(sess *ui.Session, stdout io.Writer) error {
	if s.srv != nil {
		s.srv.Stop()
	}
	s.front.Close()
	w := sess.World()
	// Written one step at a time, as raftsim serve writes its session,
	// by outfile's rules: never over a file that is not a regular one, and
	// a save that fails leaves what was there.
	f, err := outfile.Create(s.fl.Save)
	if err != nil {
		return err
	}
	if err := scenarios.WriteSession(f, scenarios.MarshalOptions{}, sess.Config(), sess.Commands(), w.Now()); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", s.fl.Save, outfile.Reason(err))
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "saved %d commands up to %s in %s; replay with: raftsim run %s\n", len(sess.Commands()), w.Now(), s.fl.Save, s.fl.Save)
	return nil
}
