package sim

// CommandsFrom returns the commands applied after the first n, in order:
// what a log written as it grows has yet to write. The slice is a copy.
func (w *World) CommandsFrom(n int) []Command {
	total := w.CommandCount()
	if n < 0 {
		n = 0
	}
	if n >= total {
		return nil
	}
	out := make([]Command, 0, total-n)
	for i := n; i < total; i++ {
		out = append(out, w.cmds[i/commandChunk][i%commandChunk].command())
	}
	return out
}

// AddMemberNames returns the names that the add_member commands applied so
// far gave, refused ones too, in order: a name a replay would find taken.
func (w *World) AddMemberNames() []string {
	var out []string
	for _, chunk := range w.cmds {
		for i := range chunk {
			if c := chunk[i].whole; c != nil && c.Kind == CmdAddMember {
				out = append(out, c.Node)
			}
		}
	}
	return out
}
