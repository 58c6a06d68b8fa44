package i18n

// Count formats n with one of two formats, by English's rule: one for 1,
// many otherwise ("%d entry", "%d entries"). Chinese has no plural, so
// both formats are translated, usually alike.
func (l Lang) Count(n int, one, many string) string {
	if n == 1 {
		return l.F(one, n)
	}
	return l.F(many, n)
}
