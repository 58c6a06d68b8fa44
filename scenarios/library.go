package scenarios

import (
	"embed"
	"errors"
	"fmt"
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
	entries, _ := fs.ReadDir(library, "library")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(lessonRank(a), lessonRank(b)) })
	return names
}

// lessonRank orders the lessons from the simplest up.
func lessonRank(name string) string {
	order := []string{"first-election", "follower-forwarding", "external-failover", "stale-read", "leader-crash", "split-brain", "quorum-loss", "membership"}
	if i := slices.Index(order, name); i >= 0 {
		return fmt.Sprintf("%02d", i)
	}
	return "99" + name
}

// LoadLesson parses a built-in lesson.
func LoadLesson(name string) (*Scenario, error) {
	data, err := library.ReadFile(path.Join("library", name+".yaml"))
	if err != nil {
		return nil, fmt.Errorf("no built-in lesson named %q (see 'raftsim lessons')", name)
	}
	return Parse(name+".yaml", data)
}

// Load parses a scenario file, or a built-in lesson when no file of that
// name exists. A name with a path separator or a .yaml/.yml suffix is
// always a file.
func Load(arg string) (*Scenario, error) {
	data, err := os.ReadFile(arg)
	if err == nil {
		return Parse(arg, data)
	}
	looksLikeFile := strings.ContainsRune(arg, os.PathSeparator) || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
	if looksLikeFile || !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return LoadLesson(arg)
}
