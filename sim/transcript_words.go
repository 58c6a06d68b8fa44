package sim

import (
	"strings"

	"github.com/raftsim/raftsim/i18n"
)

// The transcript's words for texts the history keeps in English: fault
// and action texts, drop reasons, and the outcome of client requests.
// Each is translated by the catalog; a text not listed here (a new one,
// or a key or a value) stays as it is.

// dropWord is a drop reason's name (netmodel's), marked for the catalog.
func dropWord(reason string) string {
	for _, w := range []string{i18n.N("partition"), i18n.N("loss"), i18n.N("destination-down"),
		i18n.N("queue-full"), i18n.N("unknown-destination")} {
		if w == reason {
			return w
		}
	}
	return reason
}

// faultTexts are the fault and action texts that have no parameter.
var faultTexts = []string{
	i18n.N("heal: every link restored"),
	i18n.N("crashes (volatile state lost, disk kept)"),
	i18n.N("restarts from its disk"),
	i18n.N("isolated from every other member"),
	i18n.N("election timer fires (campaign)"),
	i18n.N("removed from the cluster; it shuts down"),
	i18n.N("resumes after its stall"),
	publishedText,
	cannotPublishText,
	startText,
	dropTransferText,
	dropNoForwardingText,
}

// What a starting member does (boot.go).
var (
	publishedText        = i18n.N("has published its name and client URLs through raft; it serves clients now")
	cannotPublishText    = i18n.N("cannot publish itself (proposal forwarding is off); it serves clients without it")
	clusterVersionPrefix = i18n.N("proposes cluster version ")
	tickAdvancePrefix    = i18n.N("fast-forwards its election timer by ")
	tickAdvanceSuffix    = i18n.N(" ticks (etcd's initial election tick advance)")
	refusedConfText      = i18n.N("refused, applied as no change: ")
	startText            = i18n.N("starts for the first time, with an empty disk")
)

// Why raft dropped a proposal (apply.go): etcd's client sees only "raft
// proposal dropped".
var (
	dropTransferText     = i18n.N("drops a proposal: a leadership transfer is in progress")
	dropNoForwardingText = i18n.N("drops a proposal: proposal forwarding is off, and it is not the leader")
)

// faultAffixes are the fault texts with a parameter in the middle.
var faultAffixes = [][2]string{{tickAdvancePrefix, tickAdvanceSuffix}}

// faultPrefixes are the fault and action texts that end in a parameter
// (a duration, a name, a list of groups).
var faultPrefixes = []string{
	i18n.N("stalls for "),
	i18n.N("clock runs at "),
	i18n.N("asked to transfer leadership to "),
	i18n.N("proposes: "),
	i18n.N("partition "),
	i18n.N("cut "),
	i18n.N("restore "),
	i18n.N("link "),
	clusterVersionPrefix,
}

// confText translates a configuration change's text: a configuration
// (names stay), or a refusal (etcd's error stays).
func confText(l i18n.Lang, text string) string {
	if rest, ok := strings.CutPrefix(text, refusedConfText); ok && l != i18n.En {
		return l.T(refusedConfText) + rest
	}
	return text
}

// faultText translates a fault or action text.
func faultText(l i18n.Lang, text string) string {
	if l == i18n.En {
		return text
	}
	for _, t := range faultTexts {
		if t == text {
			return l.T(t)
		}
	}
	for _, a := range faultAffixes {
		if mid, ok := strings.CutPrefix(text, a[0]); ok {
			if mid, ok := strings.CutSuffix(mid, a[1]); ok {
				return l.T(a[0]) + mid + l.T(a[1])
			}
		}
	}
	for _, p := range faultPrefixes {
		if rest, ok := strings.CutPrefix(text, p); ok {
			rest = strings.ReplaceAll(rest, i18n.N("(both ways)"), l.T("(both ways)"))
			rest = strings.ReplaceAll(rest, i18n.N("(one way)"), l.T("(one way)"))
			return l.T(p) + rest
		}
	}
	return text
}

// opPhrases are the fixed phrases of a request's and an answer's text,
// in the order they are replaced: at the start (the outcome), or
// anywhere after it.
var (
	opStarts = []string{i18n.N("ok at revision "), i18n.N("ok: deleted "), i18n.N("ok: watching"),
		i18n.N("ok: not found"), i18n.N("ok: "), i18n.N("timeout: "), i18n.N("error: "), i18n.N("failover: "), i18n.N("retry: "),
		i18n.N("watch cancelled: "), i18n.N("canceled by the client")}
	opInner = []string{i18n.N(" keys at revision "), i18n.N(" at revision "), i18n.N(" (serializable)"),
		i18n.N(" (linearizable)"), i18n.N(" (STALE: ")}
)

// opText translates the fixed words of a request's or an answer's text;
// keys, values and etcd's errors stay as they are.
func opText(l i18n.Lang, text string) string {
	if l == i18n.En {
		return text
	}
	for _, p := range opStarts {
		if rest, ok := strings.CutPrefix(text, p); ok {
			text = l.T(p) + rest
			break
		}
	}
	for _, p := range opInner {
		if i := strings.LastIndex(text, p); i >= 0 {
			text = text[:i] + l.T(p) + text[i+len(p):]
		}
	}
	return text
}

// snapshotWord is why a snapshot was taken (or that it was installed),
// marked for the catalog.
// snapshotBootstrap is why a member of a BootstrapRaft cluster starts
// with a snapshot.
var snapshotBootstrap = i18n.N("bootstrap")

func snapshotWord(why string) string {
	for _, w := range []string{i18n.N("manual"), i18n.N("automatic"), i18n.N("installed"), snapshotBootstrap} {
		if w == why {
			return w
		}
	}
	return why
}
