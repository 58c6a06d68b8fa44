package server

import (
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestHashPasswordIsBcrypt checks HashPassword against x/crypto's bcrypt:
// what it makes is a hash bcrypt accepts for the password and refuses for
// another, at the cost asked, and the same salt makes the same hash.
func TestHashPasswordIsBcrypt(t *testing.T) {
	salt := [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	for _, pw := range []string{"", "rootpw", "a much longer password with spaces and ünïcode"} {
		h, err := HashPassword([]byte(pw), 4, salt)
		if err != nil {
			t.Fatal(err)
		}
		if err := bcrypt.CompareHashAndPassword(h, []byte(pw)); err != nil {
			t.Errorf("%q: bcrypt refuses %s: %v", pw, h, err)
		}
		if bcrypt.CompareHashAndPassword(h, []byte(pw+"x")) == nil {
			t.Errorf("%q: bcrypt accepts another password for %s", pw, h)
		}
		if c, _ := bcrypt.Cost(h); c != 4 {
			t.Errorf("cost %d", c)
		}
		again, _ := HashPassword([]byte(pw), 4, salt)
		if string(again) != string(h) {
			t.Errorf("not the same hash for the same salt")
		}
	}
	if _, err := HashPassword(make([]byte, 73), 4, salt); err != ErrPasswordTooLong {
		t.Errorf("73 bytes: %v", err)
	}
}
