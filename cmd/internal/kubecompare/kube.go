package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/raftsim/raftsim/wire"
)

// token is the bearer token kube-apiserver is given (system:masters), as
// ../shared/tools/kube-apiserver run gives it.
const token = "raftsim"

// kube is a kube-apiserver we started, and an HTTP client for it.
type kube struct {
	p     *proc
	log   string
	base  string // https://127.0.0.1:PORT
	http  *http.Client
	ready time.Duration // from start to /readyz answering ok
}

// startKube starts kube-apiserver against one etcd endpoint with kubeadm's
// client certificate, with the flags ../shared/tools/kube-apiserver run
// gives it (on a port of its own, its state under dir), and waits for
// /readyz.
func startKube(ctx context.Context, bin, dir, etcdURL string, pki *wire.TLSFiles) (*kube, error) {
	state := filepath.Join(dir, "kube-apiserver")
	if err := os.Mkdir(state, 0o755); err != nil {
		return nil, err
	}
	if err := writeServiceAccountKey(state); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(state, "tokens.csv"), []byte(token+`,admin,1,"system:masters"`+"\n"), 0o600); err != nil {
		return nil, err
	}
	ports, err := freePorts(1)
	if err != nil {
		return nil, err
	}
	k := &kube{log: filepath.Join(dir, "kube-apiserver.log"), base: fmt.Sprintf("https://127.0.0.1:%d", ports[0]),
		http: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, ForceAttemptHTTP2: true}}}
	cmd := exec.Command(filepath.Join(bin, "kube-apiserver"), "--etcd-servers="+etcdURL,
		"--etcd-cafile="+pki.CA, "--etcd-certfile="+pki.ClientCert, "--etcd-keyfile="+pki.ClientKey,
		fmt.Sprintf("--secure-port=%d", ports[0]), "--bind-address=127.0.0.1",
		"--cert-dir="+filepath.Join(state, "certs"), "--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+filepath.Join(state, "sa.pub"),
		"--service-account-signing-key-file="+filepath.Join(state, "sa.key"),
		"--token-auth-file="+filepath.Join(state, "tokens.csv"), "--authorization-mode=AlwaysAllow",
		"--service-cluster-ip-range=10.96.0.0/16")
	start := time.Now()
	if k.p, err = startProc(cmd, k.log); err != nil {
		return nil, err
	}
	err = poll(ctx, "kube-apiserver", 5*time.Minute, []*proc{k.p}, func(ctx context.Context) (bool, string) {
		code, body, err := k.do(ctx, "GET", "/readyz", "")
		if err != nil {
			return false, err.Error()
		}
		return code == 200 && body == "ok", fmt.Sprintf("/readyz: %d %s", code, body)
	})
	if err != nil {
		k.stop()
		return nil, err
	}
	k.ready = time.Since(start)
	return k, nil
}

func (k *kube) stop() { k.p.kill() }

// do sends one request and returns the status and the body.
func (k *kube) do(ctx context.Context, method, path, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, k.base+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := k.http.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// watch opens a watch on path and counts its events in events until the
// stream ends; ended is closed then.
func (k *kube) watch(ctx context.Context, path string, events *counter) (ended <-chan error, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", k.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := k.http.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return nil, fmt.Errorf("watch %s: %d %s", path, resp.StatusCode, b)
	}
	done := make(chan error, 1)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			events.add(sc.Text())
		}
		done <- sc.Err()
	}()
	return done, nil
}

// The lines counted in kube-apiserver's log.
var (
	goAwayRE   = regexp.MustCompile(`(?i)goaway`)
	tooLargeRE = regexp.MustCompile(`Too large resource version`)
)

func (k *kube) countLog() (goAways, tooLarge []string, err error) {
	f, err := os.Open(k.log)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		if goAwayRE.MatchString(sc.Text()) {
			goAways = append(goAways, sc.Text())
		}
		if tooLargeRE.MatchString(sc.Text()) {
			tooLarge = append(tooLarge, sc.Text())
		}
	}
	return goAways, tooLarge, sc.Err()
}

// writeServiceAccountKey writes sa.key and sa.pub, as the tool's openssl
// lines do.
func writeServiceAccountKey(dir string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}
