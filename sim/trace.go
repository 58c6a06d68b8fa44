package sim

import (
	"bufio"
	"io"
)

// WriteTrace writes the whole history as a JSON Lines trace: the header
// line, then one event per line in order. The same run gives the same bytes.
func (w *World) WriteTrace(out io.Writer, scenario string) error {
	bw := bufio.NewWriter(out)
	if err := w.WriteTraceHeader(bw, scenario); err != nil {
		return err
	}
	var line []byte
	for i := 0; i < w.history.len(); i++ {
		line = w.AppendTraceLine(line[:0], w.event(i))
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
