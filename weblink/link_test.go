package weblink

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

const sample = `name: gui-session
seed: 7
cluster:
  members: [etcd-1, etcd-2, etcd-3]
steps:
  - at: 1.5s
    crash: etcd-2
  - put: {via: etcd-1, key: /registry/pods/default/nginx, value: v1}
  - wait: 2.25s
`

func TestLinkRoundTrips(t *testing.T) {
	link, err := Link("http://127.0.0.1:8080/raftsim/", []byte(sample), 6512345678*time.Nanosecond)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Path != "/raftsim/" || u.Host != "127.0.0.1:8080" {
		t.Errorf("the link %s lost its base", link)
	}
	q := u.Query()
	if got := q.Get(ParamTime); got != "6.512345678s" {
		t.Errorf("t=%q, want 6.512345678s", got)
	}
	enc := q.Get(ParamScenario)
	if strings.ContainsAny(u.RawQuery, "%+ ") {
		t.Errorf("the query needed escaping: %s", u.RawQuery)
	}
	got, err := Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != sample {
		t.Errorf("decoded %q, want %q", got, sample)
	}
}

// A session of a few dozen actions fits a link comfortably: deflate more
// than makes up for base64's third.
func TestEncodeCompresses(t *testing.T) {
	yaml := sample
	for i := range 40 {
		yaml += fmt.Sprintf("  - put: {via: etcd-%d, key: /registry/pods/default/web-%d, value: v%d}\n  - wait: %dms\n", 1+i%3, i, i, 10*i)
	}
	if enc := Encode([]byte(yaml)); len(enc) > len(yaml)/3 {
		t.Errorf("the encoded scenario is %d bytes for %d of YAML: want at most a third", len(enc), len(yaml))
	}
}

// A scenario typed into a link by hand, URL-encoded, is read as it is.
func TestDecodeTakesPlainYAML(t *testing.T) {
	q, err := url.ParseQuery("scenario=" + url.QueryEscape(sample))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(q.Get("scenario"))
	if err != nil || string(got) != sample {
		t.Fatalf("Decode = %q, %v", got, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	enc := Encode([]byte(sample))
	var bomb bytes.Buffer
	w, _ := flate.NewWriter(&bomb, flate.BestCompression)
	w.Write(make([]byte, MaxScenarioBytes+10))
	w.Close()
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{enc[:len(enc)/2], "cut short"},
		{"A", "not base64url"},
		{base64.RawURLEncoding.EncodeToString(bomb.Bytes()), "more than the"},
		{strings.Repeat("x: y\n", MaxScenarioBytes/4), "more than the"},
	} {
		_, err := Decode(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%.20q...) = %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

func TestLinkWantsAnAbsoluteBase(t *testing.T) {
	for _, base := range []string{"raftsim/", "://x", "/web/"} {
		if _, err := Link(base, []byte(sample), 0); err == nil {
			t.Errorf("Link(%q) made a link", base)
		}
	}
	link, err := Link(DefaultBase+"#x", []byte(sample), 0)
	if err != nil || strings.Contains(link, "&t=") || strings.Contains(link, "#") {
		t.Errorf("Link at time 0 = %q, %v: want no t and no fragment", link, err)
	}
}
