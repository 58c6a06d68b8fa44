//go:build js

package snapshot

import "errors"

// In a browser there is no file system for bbolt (which does not build for
// js/wasm): snapshots are read and written by the raftsim command only.

type boltDB struct{}

var errNoFiles = errors.New("snapshot files are not available in the browser; use the raftsim command")

// Write is not available in the browser.
func Write(string, *State, func(func(*Record) error) error) (Written, error) {
	return Written{}, errNoFiles
}

// Open is not available in the browser.
func Open(string, Options) (*Snapshot, error) { return nil, errNoFiles }

// Close does nothing.
func (s *Snapshot) Close() error { return nil }

// Records is not available in the browser.
func (s *Snapshot) Records(func(*Record) error) error { return errNoFiles }

// Status is not available in the browser.
func (s *Snapshot) Status() (Status, error) { return Status{}, errNoFiles }
