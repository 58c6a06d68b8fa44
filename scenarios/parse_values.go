package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the units of a size, binary as etcd's flags are.
var sizeUnits = []struct {
	suffix string
	mult   uint64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1},
}

// parseSize reads a byte count: "1MiB", "512KiB", "1.5MiB", "100B" or
// "65536".
func parseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	bad := fmt.Errorf("bad size %q: want a number of bytes like 65536, or a number and a unit (B, KiB, MiB, GiB) like 512KiB or 1MiB", s)
	mult := uint64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	if t == "" || t[0] == '+' || t[0] == '-' {
		return 0, bad
	}
	if n, err := strconv.ParseUint(t, 10, 64); err == nil {
		if n > math.MaxUint64/mult {
			return 0, bad
		}
		return n * mult, nil
	}
	// A fraction of a unit, like 1.5MiB, must come to whole bytes.
	whole, frac, ok := strings.Cut(t, ".")
	if !ok || whole == "" || frac == "" || len(frac) > 9 || mult == 1 {
		return 0, bad
	}
	w, err1 := strconv.ParseUint(whole, 10, 64)
	f, err2 := strconv.ParseUint(frac, 10, 64)
	if err1 != nil || err2 != nil || w > math.MaxUint64/mult/2 {
		return 0, bad
	}
	den := uint64(1)
	for range len(frac) {
		den *= 10
	}
	if (f*mult)%den != 0 {
		return 0, fmt.Errorf("bad size %q: it is not a whole number of bytes", s)
	}
	return w*mult + f*mult/den, nil
}
