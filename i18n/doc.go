// Package i18n is the catalog of raftsim's fixed words: every label,
// button, heading and transcript phrase a person reads, in English and in
// Chinese. Code writes the English text and asks a Lang for it; the
// English text is the key, so English output is exactly what the code
// says, and a missing translation falls back to English.
//
// It imports nothing of raftsim's, so any package may use it: sim for the
// transcript, render and render/ui for the window, cmd for the flags.
//
// A test reads every Go file of the module and checks that each string
// given to T, F or N has a translation, that each translation keeps its
// format verbs and leaves no English word but those Chinese text keeps on
// purpose (Foreign), and that the catalog holds nothing no code asks for.
package i18n
