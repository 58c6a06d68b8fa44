package wire

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/raftsim/raftsim/outfile"
)

// Certificates as kubeadm makes them for a stacked etcd (kubeadm's
// certs/certlist.go): a CA "etcd-ca", a server certificate per member for
// localhost and the loopback addresses, and the client certificate that
// kube-apiserver presents to etcd, "kube-apiserver-etcd-client". RSA 2048,
// the CA for ten years, the rest for one, as kubeadm's defaults.
const (
	// CAFile and CAKeyFile are the CA's certificate and key in the
	// directory.
	CAFile, CAKeyFile = "ca.crt", "ca.key"
	// ClientName is the client certificate's base name:
	// apiserver-etcd-client.crt and .key, as kubeadm names them.
	ClientName = "apiserver-etcd-client"
)

// TLSFiles are the paths of a directory's certificates.
type TLSFiles struct {
	Dir                       string
	CA, ClientCert, ClientKey string
	ServerCert, ServerKey     map[string]string // by member
}

// WriteCerts makes, in dir, a CA and the certificates of members and of
// kube-apiserver's client, unless they are there already, and returns
// their paths. It reuses what is there and never overwrites a file: a
// certificate must be there with its key, or neither (half a pair is
// refused); one that is there must be signed by the CA there, with a key
// that matches it; a CA already in dir signs the certificates that are
// missing, and certificates without their CA are refused.
func WriteCerts(dir string, members []string) (*TLSFiles, error) {
	// The one rule of every directory output (package outfile): made if
	// absent, but never its missing parents.
	if _, err := outfile.Dir(dir); err != nil {
		return nil, err
	}
	f := &TLSFiles{Dir: dir, CA: filepath.Join(dir, CAFile), ClientCert: filepath.Join(dir, ClientName+".crt"),
		ClientKey: filepath.Join(dir, ClientName+".key"), ServerCert: map[string]string{}, ServerKey: map[string]string{}}
	for _, m := range members {
		f.ServerCert[m], f.ServerKey[m] = filepath.Join(dir, m+".crt"), filepath.Join(dir, m+".key")
	}
	caPair := [3]string{"etcd-ca", f.CA, filepath.Join(dir, CAKeyFile)}
	pairs := [][3]string{{ClientName, f.ClientCert, f.ClientKey}}
	for _, m := range members {
		pairs = append(pairs, [3]string{m, f.ServerCert[m], f.ServerKey[m]})
	}
	// What is there: each pair whole or absent.
	there := map[string]bool{}
	for _, p := range append([][3]string{caPair}, pairs...) {
		c, err := exists(p[1])
		if err != nil {
			return nil, err
		}
		k, err := exists(p[2])
		if err != nil {
			return nil, err
		}
		if c != k {
			have, lack := p[1], p[2]
			if k {
				have, lack = p[2], p[1]
			}
			return nil, fmt.Errorf("%s is there without %s: a partial PKI, which raftsim does not complete or overwrite (give both, or neither and raftsim writes them)", have, lack)
		}
		there[p[1]] = c
	}
	var ca *x509.Certificate
	var caKey crypto.Signer
	var err error
	if there[f.CA] {
		if ca, caKey, err = loadPair(f.CA, caPair[2]); err != nil {
			return nil, err
		}
	} else {
		for _, p := range pairs {
			if there[p[1]] {
				return nil, fmt.Errorf("%s is there without the CA that signed it (%s, %s): a partial PKI, which raftsim does not complete", p[1], CAFile, CAKeyFile)
			}
		}
		var key *rsa.PrivateKey
		ca, key, err = makeCert(nil, nil, pkix.Name{CommonName: "etcd-ca"}, 10*365*24*time.Hour, nil)
		if err == nil {
			err = writePair(f.CA, caPair[2], ca, key)
		}
		if err != nil {
			return nil, err
		}
		caKey = key
	}
	for _, p := range pairs {
		if !there[p[1]] {
			continue
		}
		cert, _, err := loadPair(p[1], p[2])
		if err != nil {
			return nil, err
		}
		if err := cert.CheckSignatureFrom(ca); err != nil {
			return nil, fmt.Errorf("%s is not signed by %s: %v", p[1], f.CA, err)
		}
	}
	// Everything there is sound: write what is missing.
	for _, p := range pairs {
		if there[p[1]] {
			continue
		}
		var tmpl *x509.Certificate
		if p[0] == ClientName {
			tmpl = &x509.Certificate{ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
		} else {
			// kubeadm's etcd server certificate serves and is a client too.
			tmpl = &x509.Certificate{ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
				DNSNames:    []string{p[0], "localhost"},
				IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}}
		}
		name := pkix.Name{CommonName: "kube-apiserver-etcd-client"}
		if p[0] != ClientName {
			name = pkix.Name{CommonName: p[0]}
		}
		cert, key, err := makeCert(ca, caKey, name, 365*24*time.Hour, tmpl)
		if err != nil {
			return nil, err
		}
		if err := writePair(p[1], p[2], cert, key); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// exists reports whether path is there (anything: a file raftsim must not
// overwrite).
func exists(path string) (bool, error) {
	_, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// ServerTLS is the TLS configuration of a member's endpoint: its own
// certificate, and client certificates required and checked against the
// CA, as kubeadm's etcd runs (--client-cert-auth=true).
func (f *TLSFiles) ServerTLS(member string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.ServerCert[member], f.ServerKey[member])
	if err != nil {
		return nil, err
	}
	pool, err := f.pool()
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAndVerifyClientCert,
		ClientCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

// ClientTLS is what a client such as kube-apiserver presents: the CA it
// trusts and its client certificate.
func (f *TLSFiles) ClientTLS() (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(f.ClientCert, f.ClientKey)
	if err != nil {
		return nil, err
	}
	pool, err := f.pool()
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: pool, MinVersion: tls.VersionTLS12}, nil
}

func (f *TLSFiles) pool() (*x509.CertPool, error) {
	b, err := os.ReadFile(f.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("%s holds no certificate", f.CA)
	}
	return pool, nil
}

// makeCert makes a key and a certificate for name, signed by ca (nil: a
// self-signed CA).
func makeCert(ca *x509.Certificate, caKey crypto.Signer, name pkix.Name, valid time.Duration, tmpl *x509.Certificate) (*x509.Certificate, *rsa.PrivateKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, err
	}
	if tmpl == nil {
		tmpl = &x509.Certificate{}
	}
	now := time.Now()
	tmpl.SerialNumber, tmpl.Subject = serial, name
	tmpl.NotBefore, tmpl.NotAfter = now.Add(-5*time.Minute), now.Add(valid)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	signer, signerKey := ca, caKey
	if ca == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		signer, signerKey = tmpl, crypto.Signer(key)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// writePair writes a certificate and its key, each in a file that must
// not be there yet (O_EXCL: never overwritten).
func writePair(certPath, keyPath string, cert *x509.Certificate, key *rsa.PrivateKey) error {
	if err := writeNew(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		return err
	}
	return writeNew(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
}

func writeNew(path string, data []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// loadPair reads a certificate and its private key (PKCS#1, PKCS#8 or
// EC, as kubeadm and openssl write them) and checks that they match.
func loadPair(certPath, keyPath string) (*x509.Certificate, crypto.Signer, error) {
	cb, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cblock, _ := pem.Decode(cb)
	if cblock == nil {
		return nil, nil, fmt.Errorf("%s is not PEM", certPath)
	}
	kblock, _ := pem.Decode(kb)
	if kblock == nil {
		return nil, nil, fmt.Errorf("%s is not PEM", keyPath)
	}
	cert, err := x509.ParseCertificate(cblock.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", certPath, err)
	}
	var key crypto.Signer
	if k, err := x509.ParsePKCS1PrivateKey(kblock.Bytes); err == nil {
		key = k
	} else if k, err := x509.ParseECPrivateKey(kblock.Bytes); err == nil {
		key = k
	} else if k, err := x509.ParsePKCS8PrivateKey(kblock.Bytes); err == nil {
		s, ok := k.(crypto.Signer)
		if !ok {
			return nil, nil, fmt.Errorf("%s: a %T cannot sign", keyPath, k)
		}
		key = s
	} else {
		return nil, nil, fmt.Errorf("%s: not a private key in PKCS#1, PKCS#8 or EC form", keyPath)
	}
	pub, ok := key.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(cert.PublicKey) {
		return nil, nil, fmt.Errorf("%s is not the key of %s", keyPath, certPath)
	}
	return cert, key, nil
}
