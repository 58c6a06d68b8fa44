package server

import (
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/crypto/blowfish"
)

// etcd hashes a user's password with golang.org/x/crypto/bcrypt at the
// member that receives the request (EtcdServer.UserAdd), and proposes only
// the hash. bcrypt.GenerateFromPassword draws its salt from crypto/rand,
// which a replay cannot draw again; HashPassword is the same algorithm
// (bcrypt's $2a$, as x/crypto writes it) on a salt the caller gives, drawn
// from the world's seeded entropy. bcrypt.CompareHashAndPassword checks
// what it makes (TestHashPasswordIsBcrypt).

// BcryptCost is etcd v3.6's --bcrypt-cost default (bcrypt.DefaultCost).
const BcryptCost = 10

// ErrPasswordTooLong is x/crypto's bcrypt.ErrPasswordTooLong, which etcd
// passes on (as gRPC Unknown).
var ErrPasswordTooLong = errors.New("bcrypt: password length exceeds 72 bytes")

// bcryptEncoding is bcrypt's own base64 alphabet, unpadded.
var bcryptEncoding = base64.NewEncoding("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789").WithPadding(base64.NoPadding)

// "OrpheanBeholderScryDoubt", bcrypt's magic cipher text.
var bcryptMagic = []byte("OrpheanBeholderScryDoubt")

// HashPassword is bcrypt.GenerateFromPassword(password, cost) with the
// 16-byte salt given.
func HashPassword(password []byte, cost int, salt [16]byte) ([]byte, error) {
	if len(password) > 72 {
		return nil, ErrPasswordTooLong
	}
	if cost < 4 || cost > 31 {
		return nil, fmt.Errorf("crypto/bcrypt: cost %d is outside allowed inclusive range 4..31", cost)
	}
	ckey := append(password[:len(password):len(password)], 0) // C bcrypt's trailing NUL
	c, err := blowfish.NewSaltedCipher(ckey, salt[:])
	if err != nil {
		return nil, err
	}
	for i := uint64(0); i < 1<<uint(cost); i++ {
		blowfish.ExpandKey(ckey, c)
		blowfish.ExpandKey(salt[:], c)
	}
	data := append([]byte(nil), bcryptMagic...)
	for i := 0; i < 24; i += 8 {
		for j := 0; j < 64; j++ {
			c.Encrypt(data[i:i+8], data[i:i+8])
		}
	}
	out := fmt.Appendf(nil, "$2a$%02d$", cost)
	out = append(out, bcryptEncoding.EncodeToString(salt[:])...)
	return append(out, bcryptEncoding.EncodeToString(data[:23])...), nil // 23 of 24 bytes, as C bcrypt
}
