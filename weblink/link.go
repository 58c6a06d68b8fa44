package weblink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// The query parameters of a link to the page.
const (
	ParamScenario = "scenario" // a scenario, Encode'd (or plain YAML)
	ParamTime     = "t"        // open at this virtual time, paused
)

// MaxScenarioBytes bounds a scenario read from a link, once inflated: a
// link is typed by nobody, but it is input, and a few bytes of deflate can
// stand for gigabytes.
const MaxScenarioBytes = 1 << 20

// DefaultBase is where `raftsim serve-web` serves the page by default, and
// so the base of the links a desktop window makes unless told otherwise.
const DefaultBase = "http://127.0.0.1:8080/"

// Encode returns yaml as a link's scenario parameter: raw deflate at the
// best compression, in unpadded base64url, so that it needs no escaping
// in a URL.
func Encode(yaml []byte) string {
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression) // the level is valid
	w.Write(yaml)
	w.Close()
	return base64.RawURLEncoding.EncodeToString(b.Bytes())
}

// Decode reads a scenario parameter back into YAML. A value made only of
// base64url's characters is Encode's form; anything else (spaces, colons,
// new lines) is taken as the YAML itself, URL-encoded by hand.
func Decode(v string) ([]byte, error) {
	if v == "" {
		return nil, errors.New("the scenario parameter is empty")
	}
	if strings.ContainsFunc(v, func(r rune) bool { return !isBase64URL(r) }) {
		if len(v) > MaxScenarioBytes {
			return nil, fmt.Errorf("the scenario is %d bytes, more than the %d a link may carry", len(v), MaxScenarioBytes)
		}
		return []byte(v), nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "="))
	if err != nil {
		return nil, fmt.Errorf("the scenario parameter is not base64url: %v (was the link cut short?)", err)
	}
	r := flate.NewReader(bytes.NewReader(raw))
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, MaxScenarioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("the scenario parameter does not inflate: %v (was the link cut short?)", err)
	}
	if len(data) > MaxScenarioBytes {
		return nil, fmt.Errorf("the scenario inflates to more than the %d bytes a link may carry", MaxScenarioBytes)
	}
	return data, nil
}

func isBase64URL(r rune) bool {
	return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '='
}

// Link returns a link to the page at base that opens the scenario yaml at
// virtual time at (paused there), or at its start when at is 0.
func Link(base string, yaml []byte, at time.Duration) (string, error) {
	u, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("the page's address %q: %v", base, err)
	}
	if u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("the page's address %q: want an absolute URL, like %s", base, DefaultBase)
	}
	q := url.Values{}
	q.Set(ParamScenario, Encode(yaml))
	if at > 0 {
		q.Set(ParamTime, at.String())
	}
	u.RawQuery = q.Encode()
	u.Fragment = ""
	return u.String(), nil
}
