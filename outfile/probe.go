//go:build unix

package outfile

import "syscall"

// probe checks that a file can be made in dir, without making one (which
// would change the directory's time): access(2), which also says EROFS
// for a read-only file system, as root too.
func probe(dir string) error {
	if err := syscall.Access(dir, 2|1); err != nil { // W_OK|X_OK
		return sysErr(dir, "cannot write into it", err)
	}
	return nil
}
