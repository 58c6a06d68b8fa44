package render

import (
	"math"

	"github.com/raftsim/raftsim/render/ui"
)

// logs draws one row per member, one cell per entry, as the frame placed
// them. Solid cells are committed, pale ones are not; a dark bar under a
// cell means applied; a red frame marks an entry whose term differs from
// the leader's at that index (a conflict the leader will overwrite); grey
// cells are compacted into a snapshot; a thick ink frame, an entry the
// caption speaks of. A bar after the last committed cell marks the
// member's commit index (its number is in the commit column). Under a
// follower's row, the leader's Match (filled) and Next (hollow) marks.
func (r *Renderer) logs(p *painter, f *ui.Frame) {
	s := f.L.S
	rows, _ := f.LogRows()
	for _, row := range rows {
		for _, c := range row.Cells {
			drawCell(p, c, s)
		}
		if row.CommitAt > 0 {
			c := row.Cells[0].R
			p.b.rect(p.dst, ui.Rect{X: row.CommitAt - 1.5*s, Y: c.Y - 3*s, W: 3 * s, H: c.H + 6*s}, ui.Ink)
		}
		if row.Match.R.W > 0 {
			x, y := row.Match.R.Center().X, row.Match.R.Bottom()+5*s
			p.b.poly(p.dst, []ui.Point{{X: x, Y: y}, {X: x - 4*s, Y: y + 6*s}, {X: x + 4*s, Y: y + 6*s}}, ui.Vermillion)
		}
		if row.Next.R.W > 0 {
			x, y := row.Next.R.Center().X, row.Next.R.Bottom()+5*s
			tri := []ui.Point{{X: x, Y: y}, {X: x - 4*s, Y: y + 6*s}, {X: x + 4*s, Y: y + 6*s}}
			p.b.outline(p.dst, tri, math.Max(1, 1.3*s), ui.Blue)
		}
	}
}

// drawCell draws one log cell.
func drawCell(p *painter, c ui.LogCell, s float64) {
	if c.Compacted {
		p.b.rect(p.dst, c.R, ui.LightGrey)
		p.b.frame(p.dst, c.R, 1, ui.Grey)
		if c.Named {
			p.b.frame(p.dst, c.R.Inset(-2*s), 2.5*s, ui.Ink)
		}
		return
	}
	col := ui.TermColor(c.Term)
	if c.Committed {
		p.b.rect(p.dst, c.R, col)
	} else {
		p.b.rect(p.dst, c.R, ui.Pale(col, ui.UncommittedPale))
		p.b.frame(p.dst, c.R, math.Max(1, s), col)
	}
	if c.Applied {
		p.b.rect(p.dst, ui.Rect{X: c.R.X, Y: c.R.Bottom() + 1.5*s, W: c.R.W, H: 3 * s}, ui.Ink)
	}
	if c.Conflict {
		p.b.frame(p.dst, c.R, 2*s, ui.Vermillion)
	}
	if c.Named {
		p.b.frame(p.dst, c.R.Inset(-2*s), 2.5*s, ui.Ink)
	}
}

// state highlights the pieces of the state-machine panel that differ from
// the leader's: that member is behind, and a serializable read there is
// stale.
func (r *Renderer) state(p *painter, f *ui.Frame) {
	s := f.L.S
	for _, row := range f.StateRows() {
		for _, pc := range row {
			if pc.Bad {
				p.b.rect(p.dst, ui.Rect{X: pc.R.X - 2*s, Y: pc.R.Y + 1*s, W: pc.R.W + 4*s, H: pc.R.H - 2*s}, pale(ui.Vermillion, 0.55))
			}
		}
	}
}

// clients draws the client requests' status chips: filled once the
// request has ended; a pending one has a bar filling towards its timeout.
func (r *Renderer) clients(p *painter, a *ui.App, f *ui.Frame) {
	s := f.L.S
	for _, row := range f.OpRows(a) {
		c := ui.OpStatusColor(row.Op.Status)
		if row.Stale {
			c = ui.StaleColor
		}
		if !row.Fill {
			p.b.frame(p.dst, row.Chip, 2*s, c)
			p.b.rect(p.dst, ui.Rect{X: row.Chip.X, Y: row.Chip.Bottom() - 3*s, W: row.Chip.W * row.Frac, H: 3 * s}, c)
		} else {
			p.b.rect(p.dst, row.Chip, c)
		}
	}
}
