package render

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/hajimehoshi/ebiten/v2/text/v2"

	"github.com/raftsim/raftsim/render/ui"
	"github.com/raftsim/raftsim/sim"
)

// leaderOf returns the View's leader member, if any.
func leaderOf(v sim.View) (sim.MemberView, bool) {
	for _, m := range v.Members {
		if m.Name == v.Leader {
			return m, true
		}
	}
	return sim.MemberView{}, false
}

// entryAt returns a member's log entry at an index.
func entryAt(m sim.MemberView, i uint64) (sim.LogEntryView, bool) {
	if i < m.FirstIndex || len(m.Log) == 0 {
		return sim.LogEntryView{}, false
	}
	k := i - m.FirstIndex
	if k >= uint64(len(m.Log)) {
		return sim.LogEntryView{}, false
	}
	return m.Log[k], true
}

// logs draws one row per member, one cell per entry. Solid cells are
// committed, pale ones are not; a dark bar under a cell means applied; a
// red frame marks an entry whose term differs from the leader's at that
// index (a conflict the leader will overwrite). The right column is the
// leader's Match/Next and progress state for each follower.
func (r *Renderer) logs(p *painter, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
	rect := l.Logs
	v := f.View
	small := r.Fonts.Small
	nameW := math.Round(64 * s)
	progW := math.Round(196 * s)
	top := rect.Y + l.LineH() + 8*s
	header := l.LineH() * 0.9
	rowH := math.Max(12*s, math.Min(30*s, (rect.Bottom()-top-header-4*s)/float64(max(1, len(v.Members)))))
	cellW := math.Round(20 * s)
	cellsX := rect.X + 8*s + nameW
	cellsW := rect.W - 16*s - nameW - progW
	ncells := max(1, int(cellsW/cellW))
	var hi uint64
	for _, m := range v.Members {
		hi = max(hi, m.LastIndex)
	}
	lo := uint64(1)
	if hi >= uint64(ncells) {
		lo = hi - uint64(ncells) + 1
	}
	lead, haveLead := leaderOf(v)
	prog := map[string]sim.ProgressView{}
	for _, pr := range lead.Progress {
		prog[pr.Name] = pr
	}
	type label struct {
		s    string
		x, y float64
		c    color.Color
	}
	var labels []label
	for row, m := range v.Members {
		y := top + header + float64(row)*rowH
		ch := rowH - 7*s
		for k := range ncells {
			i := lo + uint64(k)
			x := cellsX + float64(k)*cellW
			cell := ui.Rect{X: x + 1, Y: y, W: cellW - 2, H: ch}
			if i > m.LastIndex {
				continue
			}
			e, ok := entryAt(m, i)
			if !ok { // compacted into the snapshot
				p.b.rect(p.dst, cell, ui.LightGrey)
				continue
			}
			c := ui.TermColor(e.Term)
			if i <= m.Commit {
				p.b.rect(p.dst, cell, c)
			} else {
				p.b.rect(p.dst, cell, pale(c, 0.7))
				p.b.frame(p.dst, cell, 1, c)
			}
			if i <= m.Applied {
				p.b.rect(p.dst, ui.Rect{X: cell.X, Y: y + ch + 1.5*s, W: cell.W, H: 3 * s}, ui.Ink)
			}
			if haveLead && m.Name != lead.Name {
				if le, ok := entryAt(lead, i); ok && le.Term != e.Term {
					p.b.frame(p.dst, cell, 2*s, ui.Vermillion)
				}
			}
			prev, ok := entryAt(m, i-1)
			if k == 0 || !ok || prev.Term != e.Term {
				labels = append(labels, label{strconv.FormatUint(e.Term, 10), cell.X + cell.W/2, y + (ch-l.LineH()*0.8)/2, textOn(c)})
			}
		}
		if pr, ok := prog[m.Name]; ok && m.Name != lead.Name {
			if pr.Match >= lo && pr.Match < lo+uint64(ncells) {
				x := cellsX + float64(pr.Match-lo)*cellW + cellW/2
				p.b.poly(p.dst, []ui.Point{{X: x, Y: y + ch + 1*s}, {X: x - 4*s, Y: y + ch + 6*s}, {X: x + 4*s, Y: y + ch + 6*s}}, ui.Vermillion)
			}
		}
	}
	return []func(){func() {
		// Index numbers above the cells, as often as they fit.
		step := uint64(1)
		for float64(step)*cellW < width("0000", small) {
			step = map[uint64]uint64{1: 2, 2: 5, 5: 10}[step]
			if step == 0 {
				step = 10
				break
			}
		}
		for k := range ncells {
			i := lo + uint64(k)
			if i%step == 0 || k == 0 {
				p.text(strconv.FormatUint(i, 10), small, cellsX+float64(k)*cellW+cellW/2, top, ui.Muted, text.AlignCenter)
			}
		}
		lang := l.Lang
		p.text(lang.T("match · next · state"), small, rect.Right()-8*s, top, ui.Muted, text.AlignEnd)
		for row, m := range v.Members {
			y := top + header + float64(row)*rowH
			p.text(fit(m.Name, small, nameW-4*s), small, rect.X+8*s, y+(rowH-7*s-l.LineH()*0.8)/2, ui.Ink, text.AlignStart)
			right := lang.F("commit %d · applied %d", m.Commit, m.Applied)
			if m.Name == lead.Name && haveLead {
				right = lang.T("leader") + " · " + right
			} else if pr, ok := prog[m.Name]; ok {
				right = fmt.Sprintf("%d · %d · %s", pr.Match, pr.Next, lang.T(ui.ProgressWord(pr.State)))
			}
			p.text(fit(right, small, progW-6*s), small, rect.Right()-8*s, y+(rowH-7*s-l.LineH()*0.8)/2, ui.Ink, text.AlignEnd)
		}
		for _, lb := range labels {
			p.text(lb.s, small, lb.x, lb.y, lb.c, text.AlignCenter)
		}
	}}
}

// state draws each member's key-value contents. A value that differs from
// the leader's (or a key the leader has and it lacks) is highlighted: that
// member is behind, and a serializable read there is stale.
func (r *Renderer) state(p *painter, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
	rect := l.State
	v := f.View
	small := r.Fonts.Small
	lead, haveLead := leaderOf(v)
	leadKV := map[string]string{}
	for _, kv := range lead.KV {
		leadKV[kv.Key] = kv.Value
	}
	top := rect.Y + l.LineH() + 8*s
	rowH := math.Min(l.LineH()*1.1, (rect.Bottom()-top-4*s)/float64(max(1, len(v.Members))))
	nameW := math.Round(64 * s)
	type piece struct {
		s    string
		x, y float64
		bad  bool
	}
	var pieces []piece
	for row, m := range v.Members {
		y := top + float64(row)*rowH
		if y+rowH > rect.Bottom() {
			break
		}
		x := rect.X + 8*s + nameW
		maxX := rect.Right() - 8*s
		var items []piece
		if !m.Up {
			items = append(items, piece{s: l.Lang.T("(down: state machine lost until restart)")})
		}
		have := map[string]bool{}
		for _, kv := range m.KV {
			have[kv.Key] = true
			lv, ok := leadKV[kv.Key]
			items = append(items, piece{s: kv.Key + "=" + kv.Value, bad: haveLead && m.Name != lead.Name && (!ok || lv != kv.Value)})
		}
		if haveLead && m.Up && m.Name != lead.Name {
			for _, kv := range lead.KV {
				if !have[kv.Key] {
					items = append(items, piece{s: l.Lang.F("missing %s", kv.Key), bad: true})
				}
			}
		}
		if len(items) == 0 {
			items = append(items, piece{s: l.Lang.T("(empty)")})
		}
		for _, it := range items {
			w := width(it.s, small)
			if x+w > maxX {
				pieces = append(pieces, piece{s: "…", x: x, y: y})
				break
			}
			if it.bad {
				p.b.rect(p.dst, ui.Rect{X: x - 2*s, Y: y + 1*s, W: w + 4*s, H: rowH - 2*s}, pale(ui.Vermillion, 0.55))
			}
			pieces = append(pieces, piece{s: it.s, x: x, y: y, bad: it.bad})
			x += w + 12*s
		}
		pieces = append(pieces, piece{s: m.Name, x: rect.X + 8*s, y: y})
	}
	return []func(){func() {
		for _, pc := range pieces {
			p.text(pc.s, small, pc.x, pc.y+(rowH-l.LineH()*0.85)/2, ui.Ink, text.AlignStart)
		}
	}}
}

// clients draws the client operations, newest first, each with its path:
// client → member → (forwarded to) leader → outcome and latency.
func (r *Renderer) clients(p *painter, a *ui.App, f *ui.Frame) []func() {
	l := f.L
	s := l.Scale
	rect := l.Clients
	v := f.View
	small := r.Fonts.Small
	top := rect.Y + l.LineH() + 8*s
	rowH := l.LineH() * 1.05
	rows := max(0, int((rect.Bottom()-top-4*s)/rowH))
	type line struct {
		y              float64
		status, path   string
		statusC, pathC color.Color
	}
	var lines []line
	chipW := math.Round(64 * s)
	for k := 0; k < rows && k < len(v.Ops); k++ {
		op := v.Ops[len(v.Ops)-1-k]
		y := top + float64(k)*rowH
		c := ui.OpStatusColor(op.Status)
		chip := ui.Rect{X: rect.X + 8*s, Y: y + 1*s, W: chipW, H: rowH - 3*s}
		lang := l.Lang
		status := lang.T(ui.StatusWord(op.Status))
		if op.Stale {
			status = lang.T("STALE")
			c = ui.Vermillion
		}
		if op.Status == sim.OpPending {
			p.b.frame(p.dst, chip, 2*s, c)
			// How far through its timeout the pending request is.
			frac := math.Min(1, float64(op.Latency(v.Now))/float64(sim.DefaultClientTimeout))
			p.b.rect(p.dst, ui.Rect{X: chip.X, Y: chip.Bottom() - 3*s, W: chip.W * frac, H: 3 * s}, c)
		} else {
			p.b.rect(p.dst, chip, c)
		}
		path := op.Client + " → " + op.Member
		if lead, fwd := a.S.OpRoute(op.ID); fwd && lead != op.Member {
			path += " → " + lang.F("leader %s", lead)
		}
		what := op.Kind.String() + " " + op.Key
		switch op.Kind {
		case sim.OpPut:
			what += "=" + op.Value
		case sim.OpGet:
			if op.Serializable {
				what += lang.T(" (serializable)")
			} else {
				what += lang.T(" (linearizable)")
			}
		}
		res := ""
		switch {
		case op.Status == sim.OpOK && op.Kind == sim.OpGet && op.Found:
			res = " = " + strconv.Quote(op.Result)
		case op.Status == sim.OpOK && op.Kind == sim.OpGet:
			res = lang.T(" = (not found)")
		case op.Status == sim.OpError || op.Status == sim.OpTimeout:
			res = " · " + op.Err
		}
		if op.Stale {
			res += " · " + op.StaleNote
		}
		txt := fmt.Sprintf("#%d %s · %s%s · %s", op.ID, path, what, res, fmtDur(op.Latency(v.Now)))
		lines = append(lines, line{y: y, status: status, path: strings.TrimSpace(txt), statusC: textOn(filled(op, c)), pathC: ui.Ink})
	}
	return []func(){func() {
		if len(v.Ops) == 0 {
			p.text(l.Lang.T("No requests yet: click an apiserver box or a member, then put or get (p, g)."), small, rect.X+8*s, top, ui.Muted, text.AlignStart)
		}
		for _, ln := range lines {
			ty := ln.y + (rowH-3*s-l.LineH()*0.85)/2
			p.text(ln.status, small, rect.X+8*s+chipW/2, ty, ln.statusC, text.AlignCenter)
			p.text(fit(ln.path, small, rect.W-chipW-24*s), small, rect.X+16*s+chipW, ty, ui.Ink, text.AlignStart)
		}
	}}
}

// filled returns the colour a status chip's text sits on.
func filled(op sim.Op, c color.RGBA) color.RGBA {
	if op.Status == sim.OpPending {
		return ui.Panel
	}
	return c
}
