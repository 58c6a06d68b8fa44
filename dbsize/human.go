package dbsize

import (
	"fmt"
	"math"
)

// HumanBytes formats a size as etcdctl's endpoint status prints DB SIZE
// and IN USE (go-humanize's Bytes: SI units, one decimal below 10).
func HumanBytes(n uint64) string {
	if n < 10 {
		return fmt.Sprintf("%d B", n)
	}
	sizes := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	e := math.Floor(math.Log(float64(n)) / math.Log(1000))
	val := math.Floor(float64(n)/math.Pow(1000, e)*10+0.5) / 10
	if val < 10 {
		return fmt.Sprintf("%.1f %s", val, sizes[int(e)])
	}
	return fmt.Sprintf("%.0f %s", val, sizes[int(e)])
}
