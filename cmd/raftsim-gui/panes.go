package main

import (
	"fmt"
	"io"

	"github.com/raftsim/raftsim/cmd/internal/guiflags"
	"github.com/raftsim/raftsim/i18n"
	"github.com/raftsim/raftsim/interrupt"
	"github.com/raftsim/raftsim/render"
	"github.com/raftsim/raftsim/render/present"
	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/scenarios"
	"github.com/raftsim/raftsim/sim"
)

// compareVariants are the panes `play ARG` shows: with --compare, the
// scenario as written and with each setting (scenarios.LoadCompare); a
// lesson with compare:, its panes. ok is false for one world.
func compareVariants(arg string, fl *guiflags.Flags, hs host) (vs []scenarios.Variant, ok bool, err error) {
	var settings []scenarios.Setting
	for _, a := range fl.Compare {
		st, err := scenarios.ParseSetting("--compare", a)
		if err != nil {
			return nil, true, err
		}
		settings = append(settings, st)
	}
	if hs.scenario != nil && arg == guiflags.LinkedScenario {
		vs, err = scenarios.CompareVariants("the link's scenario", hs.scenario, settings)
	} else if hs.noFiles {
		vs, err = scenarios.LoadLessonCompare(arg, settings)
	} else {
		vs, err = scenarios.LoadCompare(arg, settings)
	}
	if err != nil {
		if len(settings) == 0 {
			return nil, false, nil // the one-world window says what is wrong
		}
		return nil, true, err
	}
	return vs, len(vs) > 1, nil
}

// playPanes opens the window of side-by-side panes, in lockstep (ui.Panes,
// render.PanesGame). It returns the exit code.
func playPanes(vs []scenarios.Variant, fl *guiflags.Flags, lang i18n.Lang, hs host, w, h int, sig *interrupt.Catcher, stdout, stderr io.Writer) int {
	if fl.Bench > 0 || fl.Monkey > 0 || fl.FramesDir != "" || fl.Report {
		fmt.Fprintln(stderr, "raftsim-gui: --compare (side-by-side panes) takes no --bench-frames, --monkey, --frames-dir or --report")
		return exitBadInput
	}
	var lessons []*present.Lesson
	var labels []string
	for _, v := range vs {
		l, err := present.New(v.Scenario, lang.String(), fl.Seed)
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui:", err)
			return exitBadInput
		}
		lessons = append(lessons, l)
		labels = append(labels, v.Label)
	}
	fonts, err := hs.fonts(fl.LatinFont)
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitFailed
	}
	if hs.size != nil {
		w, h = hs.size()
	}
	p, err := ui.NewPanes(lessons, labels, ui.Screen{W: w, H: h, Scale: fl.Scale, Lang: lang, Present: fl.Present, M: fonts.Font})
	if err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitBadInput
	}
	title := lessons[0].Name
	for _, a := range p.Apps {
		a.Save = func(s *ui.Session) (string, error) { return hs.save(s, fl.SaveDir) }
		a.NewConsole = hs.console(fl.SaveDir)
		a.Playing = !fl.Paused
		a.S.Stop = sig.Interrupted
	}
	opt := render.Options{
		Width: w, Height: h, Scale: fl.Scale, Title: title,
		ScreenshotAt: fl.ShotAt, ScreenshotOut: fl.Out, ShotDir: fl.SaveDir, ShotInput: fl.Inputs, WriteFile: hs.writeFile,
		WalkDir: fl.Walk, WalkOut: func(s string) { fmt.Fprintln(stdout, s) },
	}
	opt.Stop = sig.Done()
	if hs.options != nil {
		hs.options(p.Lead(), &opt)
	}
	g := render.NewPanesGame(p, fonts, title, []render.HelpSection{render.PresenterHelp(lang)}, opt)
	if fl.StartAt > 0 {
		err := g.PlayTo(sim.Time(fl.StartAt))
		p.Lead().Playing = false
		if err != nil {
			fmt.Fprintln(stderr, "raftsim-gui: --start-at:", err)
			return exitBadInput
		}
	}
	if err := render.RunPanes(g); err != nil {
		fmt.Fprintln(stderr, "raftsim-gui:", err)
		return exitFailed
	}
	if fl.Out != "" {
		fmt.Fprintf(stdout, "wrote %s at virtual time %s (font: %s)\n", fl.Out, p.Lead().S.Now(), fonts.Name)
	}
	if sig.Interrupted() {
		fmt.Fprintf(stderr, "raftsim-gui: %v at virtual time %s\n", sig.Err(), p.Lead().S.Now())
		return interrupt.ExitCode
	}
	return exitOK
}
