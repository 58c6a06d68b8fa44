package swarm

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/raftsim/raftsim/scenarios"
)

// ResultsWriter writes a results file as a campaign goes: the header, then
// a line for each seed as its result comes, each flushed at once, so that
// a campaign that stops (Ctrl-C, a full disk) leaves every seed it
// finished in the file.
type ResultsWriter struct {
	w     io.Writer
	enc   *json.Encoder
	lines int
	err   error
}

// NewResultsWriter writes h to w.
func NewResultsWriter(w io.Writer, h Header) (*ResultsWriter, error) {
	rw := &ResultsWriter{w: w, enc: json.NewEncoder(w)}
	if err := rw.enc.Encode(h); err != nil {
		return nil, err
	}
	return rw, nil
}

// Write writes one seed's result. After a failure it writes nothing more
// and returns the first error.
func (rw *ResultsWriter) Write(r Result) error {
	if rw.err == nil {
		if rw.err = rw.enc.Encode(&r); rw.err == nil {
			rw.lines++
		}
	}
	return rw.err
}

// Written returns how many results are in the file.
func (rw *ResultsWriter) Written() int { return rw.lines }

// WriteResults writes a results file: the header, then one line a seed.
func WriteResults(w io.Writer, h Header, results []Result) error {
	rw, err := NewResultsWriter(w, h)
	if err != nil {
		return err
	}
	for _, r := range results {
		if err := rw.Write(r); err != nil {
			return err
		}
	}
	return nil
}

// MaxResultLineBytes bounds a line of a results file: a failure's line
// carries its reproducer, a scenario file of at most
// scenarios.MaxFileBytes, quoted.
const MaxResultLineBytes = 8 * scenarios.MaxFileBytes

// ResultsReader reads a results file one result at a time, checking each
// line: a results file is input like any other (it may have been cut
// short, edited, or be another file altogether), and what it says ends up
// in a report and in reproducer files. Every error names the file and the
// line.
type ResultsReader struct {
	name   string
	r      *bufio.Reader
	line   int
	header Header
	last   uint64 // the last seed read
	n      uint64 // results read
}

// NewResultsReader reads and checks the header of the results file in r;
// name names it in errors.
func NewResultsReader(r io.Reader, name string) (*ResultsReader, error) {
	rr := &ResultsReader{name: name, r: bufio.NewReaderSize(r, 64<<10)}
	b, err := rr.next()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty: not a swarm results file", name)
	}
	if err != nil {
		return nil, err
	}
	if err := decodeLine(b, &rr.header); err != nil {
		return nil, rr.errorf("not a swarm results file: %v", err)
	}
	h := rr.header
	switch {
	case h.Format != ResultsFormat:
		return nil, rr.errorf("not a swarm results file of format %d (swarm_results: %d)", ResultsFormat, h.Format)
	case h.Options == "":
		return nil, rr.errorf("the header has no options")
	}
	if err := h.Seeds.check(); err != nil {
		return nil, rr.errorf("seeds: %v", err)
	}
	if err := h.Shard.check(); err != nil {
		return nil, rr.errorf("shard: %v", err)
	}
	return rr, nil
}

// Header returns the file's header.
func (rr *ResultsReader) Header() Header { return rr.header }

// Next returns the next result, or io.EOF after the last. A result must
// be for a seed of the header's shard, after the one before it, and say
// what a result says (a known verdict; a failure with its reproducer,
// which must parse as a scenario; no negative counts).
func (rr *ResultsReader) Next() (Result, error) {
	b, err := rr.next()
	if err != nil {
		return Result{}, err
	}
	var r Result
	if err := decodeLine(b, &r); err != nil {
		return Result{}, rr.errorf("%v", err)
	}
	h := rr.header
	switch {
	case r.Seed < h.Seeds.First || r.Seed > h.Seeds.Last:
		return r, rr.errorf("seed %d is not in the campaign's seeds %s", r.Seed, h.Seeds)
	case h.Shard.of(h.Seeds, r.Seed) != h.Shard.K:
		return r, rr.errorf("seed %d is not in shard %s of seeds %s", r.Seed, h.Shard, h.Seeds)
	case rr.n > 0 && r.Seed <= rr.last:
		return r, rr.errorf("seed %d comes after seed %d: a results file lists its seeds in order, each once", r.Seed, rr.last)
	}
	if err := r.check(); err != nil {
		return r, rr.errorf("seed %d: %v", r.Seed, err)
	}
	rr.last = r.Seed
	rr.n++
	return r, nil
}

// check says what is wrong with a result, if anything.
func (r Result) check() error {
	switch r.Verdict {
	case Pass, Safety, NotLinearizable, Liveness, Panic, Invalid, Unknown:
	default:
		return fmt.Errorf("unknown verdict %q (want pass, safety, linearizability, liveness, panic, invalid or unknown)", r.Verdict)
	}
	switch {
	case r.AtNS < 0 || r.EndNS < 0 || r.Steps < 0 || r.Events < 0 || r.Requests < 0 || r.Checked < 0 || r.ReproSteps < 0 || r.ShrinkRuns < 0:
		return errors.New("a count or a time below zero")
	case r.Verdict.Failed() && r.Repro == "":
		return fmt.Errorf("a failure (%s) without its reproducer", r.Verdict)
	case !r.Verdict.Failed() && (r.Repro != "" || r.Profile != ""):
		return fmt.Errorf("a result that did not fail (%s) with a reproducer", r.Verdict)
	}
	if r.Repro != "" && !strings.HasPrefix(r.Repro, unwritableRepro) {
		if _, err := scenarios.Parse(ReproFile(r.Seed), []byte(r.Repro)); err != nil {
			return fmt.Errorf("the reproducer is not a scenario: %v", err)
		}
	}
	return nil
}

// unwritableRepro starts the reproducer of a failure that the scenario
// writer could not write.
const unwritableRepro = "# the reproducer could not be written: "

// next reads the next line, without its newline.
func (rr *ResultsReader) next() ([]byte, error) {
	var line []byte
	for {
		frag, err := rr.r.ReadSlice('\n')
		if len(line)+len(frag) > MaxResultLineBytes {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes: not a swarm results file", rr.name, rr.line+1, MaxResultLineBytes)
		}
		line = append(line, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: %w", rr.name, err)
		}
		if len(line) == 0 && err != nil {
			return nil, io.EOF
		}
		rr.line++
		return bytes.TrimSuffix(line, []byte{'\n'}), nil
	}
}

func (rr *ResultsReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", rr.name, rr.line, fmt.Sprintf(format, args...))
}

// decodeLine decodes one JSON object that is the whole line, refusing
// fields a results file does not have.
func decodeLine(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("column %d: %v", se.Offset, err)
		}
		return err
	}
	if dec.More() {
		return errors.New("more than one JSON value on the line")
	}
	return nil
}

// ReadResults reads a whole results file.
func ReadResults(r io.Reader, name string) (Header, []Result, error) {
	rr, err := NewResultsReader(r, name)
	if err != nil {
		return Header{}, nil, err
	}
	var out []Result
	for {
		res, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return rr.Header(), out, nil
		}
		if err != nil {
			return rr.Header(), nil, err
		}
		out = append(out, res)
	}
}

// Merge joins the results files of the shards of one campaign, reading
// them side by side, and hands emit each seed's result in seed order: the
// results of the campaign run unsharded. Every shard must be there exactly
// once, with every one of its seeds; memory stays that of a few lines,
// whatever the campaign's size. It returns the campaign's header.
func Merge(files []*ResultsReader, emit func(Result) error) (Header, error) {
	if len(files) == 0 {
		return Header{}, errors.New("merge: no results files")
	}
	h := files[0].Header()
	n := h.Shard.Of
	if len(files) != n {
		return Header{}, fmt.Errorf("merge: %s is shard %s of a campaign in %d shards, and %d results files were given: give one for each shard",
			files[0].name, h.Shard, n, len(files))
	}
	byShard := make([]*ResultsReader, n+1)
	for _, f := range files {
		fh := f.Header()
		if fh.Options != h.Options || fh.Seeds != h.Seeds || fh.Shard.Of != n || !slices.Equal(fh.Args, h.Args) {
			return Header{}, fmt.Errorf("merge: %s is from another campaign (seeds %s, shard %s, %s), not seeds %s in %d shards, %s",
				f.name, fh.Seeds, fh.Shard, fh.Options, h.Seeds, n, h.Options)
		}
		if prev := byShard[fh.Shard.K]; prev != nil {
			return Header{}, fmt.Errorf("merge: shard %s is there twice: %s and %s", fh.Shard, prev.name, f.name)
		}
		byShard[fh.Shard.K] = f
	}
	// NB: with as many files as shards, each shard there once, none is
	// missing; the check stays, for the message.
	for k := 1; k <= n; k++ {
		if byShard[k] == nil {
			return Header{}, fmt.Errorf("merge: shard %d/%d is missing", k, n)
		}
	}
	count := h.Seeds.Count()
	for i := uint64(0); i < count; i++ {
		seed := h.Seeds.First + i
		f := byShard[h.Shard.of(h.Seeds, seed)]
		r, err := f.Next()
		switch {
		case errors.Is(err, io.EOF):
			return Header{}, fmt.Errorf("merge: %s ends after %d of the %d results of shard %s (seed %d is missing; was the campaign interrupted?)",
				f.name, f.n, f.header.Shard.Count(h.Seeds), f.header.Shard, seed)
		case err != nil:
			return Header{}, fmt.Errorf("merge: %w", err)
		case r.Seed != seed:
			return Header{}, fmt.Errorf("merge: %s:%d: seed %d, but shard %s has no result for seed %d before it (was the campaign interrupted?)",
				f.name, f.line, r.Seed, f.header.Shard, seed)
		}
		if err := emit(r); err != nil {
			return Header{}, err
		}
	}
	for k := 1; k <= n; k++ {
		if _, err := byShard[k].Next(); !errors.Is(err, io.EOF) {
			if err == nil {
				err = byShard[k].errorf("a result after the last seed of shard %s", byShard[k].header.Shard)
			}
			return Header{}, fmt.Errorf("merge: %w", err)
		}
	}
	h.Shard = Shard{K: 1, Of: 1}
	return h, nil
}
