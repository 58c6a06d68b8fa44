package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// The built-in lessons, embedded so that `raftsim run NAME` works from any
// directory.
//
//go:embed library/*.yaml
var library embed.FS

// Lesson is a built-in scenario's name and title.
type Lesson struct {
	Name    string
	Title   Text
	Summary Text
}

// Lessons lists the built-in lessons in their teaching order (the order of
// library/ORDER), each parsed to check it.
func Lessons() ([]Lesson, error) {
	var out []Lesson
	for _, name := range lessonOrder() {
		s, err := LoadLesson(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Lesson{Name: s.Name, Title: s.Title, Summary: s.Summary})
	}
	return out, nil
}

// lessonOrder is the teaching order: numbered file names sort first.
func lessonOrder() []string {
	names := libraryFiles()
	for _, c := range compareLessons() {
		for _, pn := range c.Panes {
			if pn.Lesson != "" && !slices.Contains(names, pn.Lesson) {
				names = append(names, pn.Lesson)
			}
		}
	}
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(lessonRank(a), lessonRank(b)) })
	return names
}

// libraryFiles are the lessons' files' names, without .yaml.
func libraryFiles() []string {
	entries, _ := fs.ReadDir(library, "library")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	return names
}

// lessonRank orders the lessons from the simplest up.
func lessonRank(name string) string {
	order := []string{
		"first-election", "log-replication", "follower-forwarding", "external-failover",
		"stale-read", "leader-crash", "split-brain", "quorum-loss", "quorum-sizes",
		"pre-vote", "pre-vote-off", "pre-vote-compare", "partial-partition", "partial-partition-no-prevote",
		"partial-partition-no-checkquorum", "partial-partition-neither", "figure-8", "figure-8-commit",
		"leadership-transfer", "membership", "log-compaction", "lease-read", "watch", "kubernetes-failure",
		"disaster-recovery", "database-space-exceeded",
	}
	if i := slices.Index(order, name); i >= 0 {
		return fmt.Sprintf("%02d", i)
	}
	return "99" + name
}

// LoadLesson parses a built-in lesson.
func LoadLesson(name string) (*Scenario, error) {
	file, data, err := lessonSource(name)
	if err != nil {
		if s, ok := aliasLesson(name); ok {
			return s, nil
		}
		return nil, err
	}
	return Parse(file, data)
}

// lessonSource returns a built-in lesson's file name and bytes.
func lessonSource(name string) (string, []byte, error) {
	data, err := library.ReadFile(path.Join("library", name+".yaml"))
	if err != nil {
		return "", nil, fmt.Errorf("no built-in lesson named %q (see 'raftsim lessons')", name)
	}
	return name + ".yaml", data, nil
}

// Load parses a scenario file, or a built-in lesson when no file of that
// name exists. A name with a path separator or a .yaml/.yml suffix is
// always a file. A bare name that is a directory is a lesson's when a
// lesson has that name: run from raftsim's own source tree, "membership"
// is both a lesson and a package's directory, and only the lesson can be
// meant.
func Load(arg string) (*Scenario, error) {
	if s, ok, err := loadSession(arg); ok {
		return s, err
	}
	file, data, err := loadSource(arg)
	if err != nil {
		if bareName(arg) {
			if s, ok := aliasLesson(arg); ok {
				return s, nil
			}
		}
		return nil, err
	}
	return Parse(file, data)
}

// bareName reports whether arg may name a lesson: not a path, no .yaml.
func bareName(arg string) bool {
	return !strings.ContainsRune(arg, os.PathSeparator) && !strings.HasSuffix(arg, ".yaml") && !strings.HasSuffix(arg, ".yml")
}

// loadSource finds what Load parses: the file's name for positions and
// its bytes.
func loadSource(arg string) (string, []byte, error) {
	data, err := ReadFileLimited(arg, arg, MaxFileBytes, "a scenario file")
	if err == nil {
		return arg, data, nil
	}
	looksLikeFile := strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
	if looksLikeFile {
		return "", nil, err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return lessonSource(arg)
	}
	if info, serr := os.Stat(arg); serr == nil && info.IsDir() {
		if file, data, lerr := lessonSource(arg); lerr == nil {
			if _, perr := Parse(file, data); perr == nil {
				return file, data, nil
			}
		}
	}
	return "", nil, err
}

// ReadFileLimited reads the file at path, refusing a directory and a file
// of more than limit bytes. Errors call it name (the name the user gave)
// and what it should be ("a scenario file"). It reads at most limit+1
// bytes, so an endless file such as /dev/zero costs no more than a file at
// the limit.
func ReadFileLimited(path, name string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not %s", name, what)
	}
	if info.Mode().IsRegular() && info.Size() > limit {
		size := FormatBytes(info.Size())
		if size == FormatBytes(limit) {
			size = fmt.Sprintf("%d bytes", info.Size())
		}
		return nil, fmt.Errorf("%s is %s; %s may be at most %s", name, size, what, FormatBytes(limit))
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s holds more than %s; %s may be at most %s", name, FormatBytes(limit), what, FormatBytes(limit))
	}
	return data, nil
}

// FormatBytes formats a size in bytes with a binary unit: "512 B",
// "1 MiB", "19.2 MiB".
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n), "B"
	for _, next := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, u = v/unit, next
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + u
}
