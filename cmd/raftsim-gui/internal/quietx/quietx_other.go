//go:build !(linux || freebsd || netbsd || openbsd || dragonfly)

package quietx
