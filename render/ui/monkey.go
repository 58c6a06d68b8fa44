package ui

import (
	"math/rand/v2"
)

// monkeyKeys are the keys the monkey presses. F12 is left out: it writes
// a PNG, which tests the disk more than the App.
var monkeyKeys = []string{"space", "n", "m", "+", "-", "h", "z", "s", "?", "escape", "left", "right",
	"1", "2", "3", "4", "5", "6", "x", "r", "t", "c", "l", "i", "d", "o", "k", "p", "g", "a", ":", "enter", "up", "backspace"}

// monkeyLines are what the monkey types into the command box: the verbs
// people use, and some mistakes.
var monkeyLines = []string{"put /m/1 x", "get /m --prefix", "get /m/1 --consistency=s", "del /m --prefix", "status",
	"endpoint status -w table", "endpoint health", "member list", "crash etcd-2", "restart etcd-2", "isolate etcd-3",
	"heal", "watch /m --prefix", "unwatch", "trace on", "trace off", "wait 30ms", "tick", "move-leader etcd-4",
	"campaign etcd-5", "help", "bogus --flag", "put", "exit"}

// RandomInput returns a random input event for the monkey test, aimed
// mostly at things that do something: members, menu items, cuts, buttons,
// the timeline and the keyboard. It only reads the App.
func RandomInput(rng *rand.Rand, a *App) Input {
	f := BuildFrame(a)
	shift := rng.IntN(4) == 0
	anywhere := Point{X: rng.Float64() * a.L.W, Y: rng.Float64() * a.L.H}
	member := func() Point {
		if len(f.Ring.Pos) == 0 {
			return anywhere
		}
		p := f.Ring.Pos[rng.IntN(len(f.Ring.Pos))]
		return p.Add(Point{X: (rng.Float64() - 0.5) * f.Ring.NodeR, Y: (rng.Float64() - 0.5) * f.Ring.NodeR})
	}
	if a.drag != nil { // finish or continue the press in progress
		switch rng.IntN(3) {
		case 0:
			return Input{Kind: MouseMove, At: member(), Shift: shift}
		case 1:
			return Input{Kind: MouseUp, At: member(), Shift: shift}
		}
		return Input{Kind: MouseUp, At: anywhere, Shift: shift}
	}
	if a.Box.Open && rng.IntN(3) == 0 {
		if rng.IntN(2) == 0 {
			return Type(monkeyLines[rng.IntN(len(monkeyLines))])
		}
		return Key("enter", false)
	}
	switch n := rng.IntN(100); {
	case n < 25:
		return Input{Kind: MouseDown, At: member(), Shift: shift}
	case n < 40 && f.Menu != nil && len(f.Menu.Items) > 0:
		it := f.Menu.Items[rng.IntN(len(f.Menu.Items))]
		return Input{Kind: MouseDown, At: it.R.Center()}
	case n < 45 && len(f.Cuts) > 0:
		return Input{Kind: MouseDown, At: f.Cuts[rng.IntN(len(f.Cuts))].P}
	case n < 50 && len(f.Msgs) > 0:
		return Input{Kind: MouseDown, At: f.Msgs[rng.IntN(len(f.Msgs))].P}
	case n < 55 && len(f.Clients) > 0:
		return Input{Kind: MouseDown, At: f.Clients[rng.IntN(len(f.Clients))].R.Center()}
	case n < 62:
		b := a.L.Buttons[rng.IntN(len(a.L.Buttons))]
		return Input{Kind: MouseDown, At: b.Rect.Center()}
	case n < 66:
		tr := Track(a.L)
		return Input{Kind: MouseDown, At: Point{X: tr.X + rng.Float64()*tr.W, Y: tr.Center().Y}}
	case n < 70:
		return Input{Kind: MouseMove, At: anywhere}
	case n < 75:
		return Input{Kind: MouseDown, At: anywhere, Shift: shift}
	}
	return Input{Kind: KeyPress, Key: monkeyKeys[rng.IntN(len(monkeyKeys))], Shift: shift}
}
