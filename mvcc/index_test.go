package mvcc

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIndexKeepsKeyOrder: the key index in blocks answers as one sorted
// list would, through inserts in random order (splitting blocks many
// times), compactions that drop keys, a rebuild and searches from keys
// present and absent.
func TestIndexKeepsKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var x index
	var want []string
	check := func(when string) {
		t.Helper()
		var got []string
		x.ascend(nil, func(ki *keyIndex) bool { got = append(got, string(ki.key)); return true })
		if !slices.Equal(got, want) || x.len() != len(want) {
			t.Fatalf("%s: %d keys (len %d), want %d; equal: %v", when, len(got), x.len(), len(want), slices.Equal(got, want))
		}
		for _, k := range want {
			if ki := x.get([]byte(k)); ki == nil || string(ki.key) != k {
				t.Fatalf("%s: get %q: %v", when, k, ki)
			}
		}
		for range 2000 {
			k := fmt.Sprintf("k%05d", rng.IntN(20000))
			i, found := slices.BinarySearch(want, k)
			if ki := x.get([]byte(k)); (ki != nil) != found || found && string(ki.key) != k {
				t.Fatalf("%s: get %q: %v, want found %v", when, k, ki, found)
			}
			var from []string
			x.ascend([]byte(k), func(ki *keyIndex) bool {
				from = append(from, string(ki.key))
				return len(from) < 5
			})
			if w := want[i:min(i+5, len(want))]; !slices.Equal(from, w) {
				t.Fatalf("%s: from %q: %q, want %q", when, k, from, w)
			}
		}
	}
	for _, k := range rng.Perm(10000) {
		key := fmt.Sprintf("k%05d", 2*k)
		x.insert(&keyIndex{key: []byte(key)})
		i, _ := slices.BinarySearch(want, key)
		want = slices.Insert(want, i, key)
	}
	check("inserted")
	x.deleteFunc(func(ki *keyIndex) bool { return ki.key[4]%3 == 0 || string(ki.key) < "k02000" })
	want = slices.DeleteFunc(want, func(k string) bool { return k[4]%3 == 0 || k < "k02000" })
	check("deleted")
	for _, k := range rng.Perm(5000) {
		key := fmt.Sprintf("k%05d", 4*k+1)
		x.insert(&keyIndex{key: []byte(key)})
		i, _ := slices.BinarySearch(want, key)
		want = slices.Insert(want, i, key)
	}
	check("inserted again")
	var kis []*keyIndex
	x.ascend(nil, func(ki *keyIndex) bool { kis = append(kis, ki); return true })
	rng.Shuffle(len(kis), func(i, j int) { kis[i], kis[j] = kis[j], kis[i] })
	var y index
	y.build(kis)
	x = y
	check("rebuilt")
	x.deleteFunc(func(*keyIndex) bool { return true })
	want = nil
	check("emptied")
	x.insert(&keyIndex{key: []byte("k00001")})
	want = []string{"k00001"}
	check("one")
}
