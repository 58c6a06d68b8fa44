package i18n

import (
	"maps"
	"slices"
)

// Texts returns every text of the catalog in l, sorted: the English keys
// for English, their translations for another language. The web page's
// font must hold a glyph for every rune of them.
func Texts(l Lang) []string {
	if l == En {
		return slices.Sorted(maps.Keys(zh))
	}
	return slices.Sorted(maps.Values(zh))
}
