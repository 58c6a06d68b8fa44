// Package outfile writes a command's output file safely: every file that
// raftsim writes for its user (exports, traces, reproducers, sessions,
// snapshots, plots, screenshots, frames) goes through it.
//
// The rules:
//   - An output path must be absent or a regular file. A device node, a
//     FIFO, a socket or a directory is refused, with an error naming the
//     path, before any work is done and before anything is opened (so a
//     FIFO with no reader never blocks the command).
//   - A symlink is followed: a link to a regular file (or to nothing yet,
//     in a directory that exists) is written as that file, the link stays
//     and the file it names is replaced; a link to anything else is
//     refused as that thing would be.
//   - A regular file with no write bit (chmod a-w) is refused, as root
//     too: replacing it would defeat what the mode says.
//   - The output is written into a temporary file in the destination's
//     own directory and renamed over the destination only when whole, so
//     a write that fails or is abandoned leaves what was there untouched.
//     raftsim removes only that temporary file, never the destination.
//   - A replaced file keeps its permission bits; a new one is 0644
//     (CreateMode: another).
//
// Between the check and the rename another process could put a node at the
// path; the path is checked again just before the rename, which narrows
// that window to the rename itself.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Error is an output path that raftsim refuses to write.
type Error struct {
	Path string // as the user gave it
	Why  string
	Err  error // the system's error under Why, if there was one
}

func (e *Error) Error() string { return e.Path + ": " + e.Why }

func (e *Error) Unwrap() error { return e.Err }

// sysErr is an Error for a failed system call.
func sysErr(path, why string, err error) *Error {
	err = Reason(err)
	if why == "" {
		return &Error{path, err.Error(), err}
	}
	return &Error{path, why + ": " + err.Error(), err}
}

// kind names what a non-regular file is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return "not a regular file"
}

const notRegular = ", not a regular file: raftsim writes only regular files, through a temporary file renamed into place, and leaves anything else alone"

// resolve returns the file that writing path writes: path itself, or the
// file a symlink names. Its FileInfo is nil when that file is absent.
func resolve(path string) (string, fs.FileInfo, error) {
	target := path
	for range 40 {
		fi, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, sysErr(path, "", err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return target, fi, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, sysErr(path, "", err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(target), link)
		}
		target = link
	}
	return "", nil, &Error{path, "too many levels of symbolic links", nil}
}

// check is Check, returning the resolved destination and its info.
func check(path string) (string, fs.FileInfo, error) {
	if path == "" {
		return "", nil, &Error{path, "no file name", nil}
	}
	dest, fi, err := resolve(path)
	if err != nil {
		return "", nil, err
	}
	if fi == nil {
		dir := filepath.Dir(dest)
		di, err := os.Stat(dir)
		if err != nil {
			return "", nil, sysErr(path, "cannot write into "+dir, err)
		}
		if !di.IsDir() {
			return "", nil, &Error{path, fmt.Sprintf("%s is not a directory", dir), nil}
		}
		return dest, nil, nil
	}
	if !fi.Mode().IsRegular() {
		what := kind(fi.Mode())
		if dest != path {
			what = "a symlink to " + what + " (" + dest + ")"
		}
		return "", nil, &Error{path, "is " + what + notRegular, nil}
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return "", nil, &Error{path, "is read-only (no write bit in its mode " + fi.Mode().Perm().String() + "); raftsim does not replace it", nil}
	}
	return dest, fi, nil
}

// Check reports whether path may be written as an output, without
// creating anything: nil if it is absent (in a directory that exists) or
// a writable regular file.
func Check(path string) error {
	_, _, err := check(path)
	return err
}

// File is an output being written: a temporary file beside the
// destination. Write to it, then Commit (or Abort).
type File struct {
	*os.File
	name string      // the destination as given
	dest string      // the destination, through any symlink
	mode fs.FileMode // the permission bits it gets
	done bool
	part bool // CreatePart's: a file of the user's, never removed
}

// Create checks path (Check) and opens a temporary file beside it. Call it
// before the work starts, so that an output that cannot be written is
// refused at once.
func Create(path string) (*File, error) { return CreateMode(path, 0o644) }

// CreateMode is Create with the permission bits a new file gets (a file
// replaced keeps its own): a snapshot is 0600, as etcdctl makes it.
func CreateMode(path string, perm fs.FileMode) (*File, error) {
	dest, fi, err := check(path)
	if err != nil {
		return nil, err
	}
	mode := perm.Perm()
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".raftsim-*")
	if err != nil {
		return nil, sysErr(path, "cannot write into "+filepath.Dir(dest), err)
	}
	return &File{File: tmp, name: path, dest: dest, mode: mode}, nil
}

// PartSuffix is what CreatePart adds to a destination's name.
const PartSuffix = ".part"

// CreatePart is CreateMode for an output that is written as the work goes
// and must outlive a process that is killed (SIGKILL, a power cut): a
// raftsim serve session. It is written into the destination's name with
// PartSuffix, beside it, a name the user is told and can use; Commit
// renames it over the destination. That file is created new: one already
// there (an earlier run killed before its end) is refused, never
// overwritten. Unlike Create's temporary file it is never removed: Abort
// and a failed Commit close it and leave it where it is.
func CreatePart(path string, perm fs.FileMode) (*File, error) {
	dest, fi, err := check(path)
	if err != nil {
		return nil, err
	}
	mode := perm.Perm()
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	part := dest + PartSuffix
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return nil, &Error{path, part + " is there already (the file of an earlier run that did not end?); raftsim does not overwrite it: replay or move it, then try again", err}
	}
	if err != nil {
		return nil, sysErr(path, "cannot write "+part, err)
	}
	return &File{File: f, name: path, dest: dest, mode: mode, part: true}, nil
}

// PartName is the file being written: CreatePart's visible one, or
// Create's temporary one.
func (f *File) PartName() string { return f.File.Name() }

// Name is the destination, as given to Create (not the temporary file's).
func (f *File) Name() string { return f.name }

// Commit closes the temporary file and renames it over the destination,
// after checking the destination again. On an error the temporary file is
// removed and the destination is as it was.
func (f *File) Commit() error {
	if f.done {
		return &Error{f.name, "already written or abandoned", nil}
	}
	f.done = true
	err := f.File.Close()
	if err == nil {
		err = os.Chmod(f.File.Name(), f.mode)
	}
	if err == nil {
		// Again: something may have taken the path during the work.
		var dest string
		dest, _, err = check(f.name)
		if err == nil && dest != f.dest {
			err = &Error{f.name, "changed while it was being written (now " + dest + ")", nil}
		}
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.dest)
	}
	if err != nil {
		if !f.part {
			os.Remove(f.File.Name())
		}
		var oe *Error
		if errors.As(err, &oe) {
			return err
		}
		return sysErr(f.name, "", err)
	}
	return nil
}

// Abort abandons the output: the temporary file is closed and removed,
// and the destination is left as it was. It does nothing after Commit, so
// it may be deferred.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	f.File.Close()
	if !f.part {
		os.Remove(f.File.Name())
	}
}

// Close is Abort: an output is only written by Commit.
func (f *File) Close() error {
	f.Abort()
	return nil
}

// WriteFile writes data to path by the rules above.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return sysErr(path, "", err)
	}
	return f.Commit()
}

// Dir prepares an output directory: one that exists (or a symlink to
// one) is used as it is; an absent one is made, but only it: its parent
// must exist. A missing parent is refused with the path named, as mkdir
// without -p refuses it and as etcdctl snapshot save refuses a file in a
// directory that is not there: a typo in a parent's name should not
// quietly grow a tree somewhere else. A path that is there and is not a
// directory is refused. It returns the directory it made (none, or the
// one), for RemoveEmpty. This is the one rule for every directory output
// of every command (experiment --out, swarm --repro-dir, export --frames,
// the window's --save-dir, serve --tls).
func Dir(dir string) ([]string, error) {
	if dir == "" {
		return nil, &Error{dir, "no directory name", nil}
	}
	fi, err := os.Stat(dir)
	if err == nil {
		if !fi.IsDir() {
			return nil, &Error{dir, "is " + kindOrFile(fi.Mode()) + ", not a directory", nil}
		}
		return nil, probe(dir)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, sysErr(dir, "", err)
	}
	if li, lerr := os.Lstat(dir); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
		return nil, &Error{dir, "is a symlink to nothing; raftsim does not make the directory it names", nil}
	}
	clean := filepath.Clean(dir)
	parent := filepath.Dir(clean)
	pi, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{dir, "its parent directory " + parent + " does not exist; raftsim makes the output directory itself but not its parents (make them first: mkdir -p " + parent + ")", err}
	case err != nil:
		return nil, sysErr(dir, "cannot make it in "+parent, err)
	case !pi.IsDir():
		return nil, &Error{dir, "cannot make it: " + parent + " is " + kindOrFile(pi.Mode()) + ", not a directory", nil}
	}
	if err := os.Mkdir(clean, 0o755); err != nil {
		return nil, sysErr(dir, "", err)
	}
	made := []string{clean}
	if err := probe(dir); err != nil {
		RemoveEmpty(made)
		return nil, err
	}
	return made, nil
}

func kindOrFile(m fs.FileMode) string {
	if m.IsRegular() {
		return "a regular file"
	}
	return kind(m)
}

// RemoveEmpty removes the directories Dir made, innermost first, if they
// are empty: an output directory that got nothing is not left behind.
func RemoveEmpty(made []string) {
	for i := len(made) - 1; i >= 0; i-- {
		if os.Remove(made[i]) != nil { // only an empty directory goes
			return
		}
	}
}

// Reason is the reason of a file error, without the path (which may be
// the temporary file's): what an error message that names the path
// itself says.
func Reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
