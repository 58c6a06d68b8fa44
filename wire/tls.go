package wire

import (
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
// kube-apiserver's client, unless they are there already (a CA already in
// dir signs the certificates that are missing), and returns their paths.
func WriteCerts(dir string, members []string) (*TLSFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f := &TLSFiles{Dir: dir, CA: filepath.Join(dir, CAFile), ClientCert: filepath.Join(dir, ClientName+".crt"),
		ClientKey: filepath.Join(dir, ClientName+".key"), ServerCert: map[string]string{}, ServerKey: map[string]string{}}
	ca, caKey, err := loadPair(f.CA, filepath.Join(dir, CAKeyFile))
	if errors.Is(err, os.ErrNotExist) {
		ca, caKey, err = makeCert(nil, nil, pkix.Name{CommonName: "etcd-ca"}, 10*365*24*time.Hour, nil)
		if err == nil {
			err = writePair(f.CA, filepath.Join(dir, CAKeyFile), ca, caKey)
		}
	}
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		f.ServerCert[m], f.ServerKey[m] = filepath.Join(dir, m+".crt"), filepath.Join(dir, m+".key")
	}
	pairs := [][3]string{{ClientName, f.ClientCert, f.ClientKey}}
	for _, m := range members {
		pairs = append(pairs, [3]string{m, f.ServerCert[m], f.ServerKey[m]})
	}
	for _, p := range pairs {
		if _, _, err := loadPair(p[1], p[2]); err == nil {
			continue
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
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
func makeCert(ca *x509.Certificate, caKey *rsa.PrivateKey, name pkix.Name, valid time.Duration, tmpl *x509.Certificate) (*x509.Certificate, *rsa.PrivateKey, error) {
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
		signer, signerKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

func writePair(certPath, keyPath string, cert *x509.Certificate, key *rsa.PrivateKey) error {
	if err := os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
}

func loadPair(certPath, keyPath string) (*x509.Certificate, *rsa.PrivateKey, error) {
	cb, err := os.ReadFile(certPath)
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, nil, err
	}
	cblock, _ := pem.Decode(cb)
	kblock, _ := pem.Decode(kb)
	if cblock == nil || kblock == nil {
		return nil, nil, fmt.Errorf("%s or %s is not PEM", certPath, keyPath)
	}
	cert, err := x509.ParseCertificate(cblock.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", certPath, err)
	}
	key, err := x509.ParsePKCS1PrivateKey(kblock.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", keyPath, err)
	}
	return cert, key, nil
}
