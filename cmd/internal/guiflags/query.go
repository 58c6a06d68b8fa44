package guiflags

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// LinkedScenario is the name FromQuery puts after play for the scenario a
// link carries; the page reads the scenario from the link, not a file.
const LinkedScenario = "(the link's scenario)"

// QueryParams are the parameters a link to the web page may carry, each
// with the flag it stands for, as the README documents them.
var QueryParams = []struct{ Name, Flag, What string }{
	{"lesson", "play NAME", "a built-in lesson; ?lesson alone opens the lesson picker"},
	{"scenario", "play FILE", "a scenario, deflated and base64url (what u, copy link, writes) or plain URL-encoded YAML"},
	{"lang", "--lang", "en or zh (default: the browser's language)"},
	{"seed", "--seed", "the seed"},
	{"present", "--present", "1 for the projector layout"},
	{"t", "--start-at", "open at this virtual time, paused (6.5s, 1m30s, or seconds: 6.5)"},
	{"speed", "--speed", "a fixed rate, virtual time per real time"},
	{"paused", "--paused", "1 to start paused"},
	{"scale", "--scale", "scale of text and shapes"},
	{"compare", "--compare", "KEY=VALUE: the lesson or scenario as written and with the setting, side by side (twice: four panes)"},
}

// FromQuery turns the query of a link to the web page into the window's
// command line, as raftsim-gui would be started for it, and returns the
// scenario the link carries, if it carries one (its play argument is then
// LinkedScenario). Bad values are errors that name the parameter.
func FromQuery(q url.Values, decode func(string) ([]byte, error)) (args []string, scenario []byte, err error) {
	for _, name := range slices.Sorted(maps.Keys(q)) {
		vs := q[name]
		if !slices.ContainsFunc(QueryParams, func(p struct{ Name, Flag, What string }) bool { return p.Name == name }) {
			var known []string
			for _, p := range QueryParams {
				known = append(known, p.Name)
			}
			return nil, nil, fmt.Errorf("unknown link parameter %q (known: %s)", name, strings.Join(known, ", "))
		}
		if len(vs) > 1 && !(name == "compare" && len(vs) == 2) {
			return nil, nil, fmt.Errorf("the link gives %s %d times", name, len(vs))
		}
	}
	_, hasLesson := q["lesson"]
	_, hasScenario := q["scenario"]
	switch {
	case hasLesson && hasScenario:
		return nil, nil, fmt.Errorf("a link opens a lesson or a scenario, not both")
	case hasScenario:
		if scenario, err = decode(q.Get("scenario")); err != nil {
			return nil, nil, err
		}
		args = append(args, "play", LinkedScenario)
	case hasLesson && q.Get("lesson") == "":
		args = append(args, "play")
	case hasLesson:
		args = append(args, "play", q.Get("lesson"))
	}
	if v, ok := q["lang"]; ok {
		if v[0] != "en" && v[0] != "zh" {
			return nil, nil, fmt.Errorf("lang=%s: want en or zh", v[0])
		}
		args = append(args, "--lang", v[0])
	}
	if v, ok := q["seed"]; ok {
		if _, err := strconv.ParseUint(v[0], 10, 64); err != nil {
			return nil, nil, fmt.Errorf("seed=%s: want a whole number", v[0])
		}
		args = append(args, "--seed", v[0])
	}
	for _, b := range []string{"present", "paused"} {
		if v, ok := q[b]; ok {
			on, err := queryBool(v[0])
			if err != nil {
				return nil, nil, fmt.Errorf("%s=%s: %v", b, v[0], err)
			}
			args = append(args, "--"+b+"="+strconv.FormatBool(on))
		}
	}
	if v, ok := q["t"]; ok {
		d, err := time.ParseDuration(v[0])
		if f, ferr := strconv.ParseFloat(v[0], 64); err != nil && ferr == nil {
			d, err = time.Duration(f*float64(time.Second)), nil
		}
		if err != nil || d < 0 {
			return nil, nil, fmt.Errorf("t=%s: want a virtual time such as 6.5s, 1m30s or 6.5", v[0])
		}
		if err := CheckStartAt("t="+v[0]+":", d); err != nil {
			return nil, nil, err
		}
		args = append(args, "--start-at", d.String())
	}
	for _, f := range []string{"speed", "scale"} {
		if v, ok := q[f]; ok {
			if x, err := strconv.ParseFloat(v[0], 64); err != nil || x <= 0 {
				return nil, nil, fmt.Errorf("%s=%s: want a positive number", f, v[0])
			}
			args = append(args, "--"+f, v[0])
		}
	}
	for _, v := range q["compare"] {
		if !strings.Contains(v, "=") {
			return nil, nil, fmt.Errorf("compare=%s: want KEY=VALUE, like compare=pre_vote=false", v)
		}
		args = append(args, "--compare", v)
	}
	return args, scenario, nil
}

// queryBool reads a link's yes or no: 1, true, yes, on, or an empty value
// (?present) for yes; 0, false, no, off for no.
func queryBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "", "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("want 1 or 0")
}
