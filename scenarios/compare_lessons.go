package scenarios

// LoadLessonCompare is LoadCompare for a built-in lesson, never a file
// (the web page, which has none): the lesson with each setting, or a
// compare: lesson's panes, or an alias compared as its pane.
func LoadLessonCompare(name string, settings []Setting) ([]Variant, error) {
	file, data, err := lessonSource(name)
	if err == nil {
		return compareVariants(file, data, nil, settings)
	}
	s, ok := aliasLesson(name)
	if !ok {
		return nil, err
	}
	file, data, lerr := lessonSource(s.AliasOf)
	if lerr != nil {
		return nil, lerr
	}
	c, perr := Parse(file, data)
	if perr != nil {
		return nil, perr
	}
	for i := range c.Panes {
		if c.Panes[i].Lesson == name {
			return compareVariants(file, data, &c.Panes[i], settings)
		}
	}
	return nil, err
}
