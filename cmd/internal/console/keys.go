package console

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/raftsim/raftsim/sim"
)

// waitLimit bounds how long a console command waits for an answer, beyond
// its client's own timeout, so that no command can hang the console.
const waitLimit = time.Minute

// output prints a job's text; a background job's lines carry its number.
func (c *Console) output(j *job, text string) {
	if !j.background {
		c.printf("%s", text)
		return
	}
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			c.printf("[%d] %s", j.id, l)
		}
	}
}

// request starts a client request and a job that prints its answer with
// show when it arrives.
func (c *Console) request(cmd sim.Command, bg bool, show func(op *sim.Op) string) error {
	op, err := c.do(cmd)
	if err != nil {
		return err
	}
	j := &job{deadline: c.w.Now().Add(waitLimit)}
	j.poll = func() bool {
		if op.Status == sim.OpPending {
			return false
		}
		if op.Status == sim.OpOK {
			c.output(j, show(op))
		} else {
			c.output(j, "Error: "+op.Err+"\n")
		}
		return true
	}
	j.onDeadline = func() {
		c.output(j, fmt.Sprintf("Error: no answer after %s; the console stopped waiting\n", waitLimit))
	}
	if bg {
		c.printf("[%d] %s started in the background (op %d)\n", c.nextJob+1, cmd.Kind, op.ID)
	}
	return c.start(j, bg)
}

// put KEY VALUE: etcdctl put.
func (c *Console) put(args []string, bg bool) error {
	f := newFlags("put")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	rest, err := f.parse(args, 2, 2, "put KEY VALUE [--via CLIENT] [--endpoints M]")
	if err != nil {
		return err
	}
	if rest[0] == "" {
		return fmt.Errorf("key is not provided")
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	return c.request(sim.Command{Kind: sim.CmdPut, Via: from, By: c.sender(*via), Timeout: c.timeout(*via), Key: rest[0], Value: rest[1]}, bg,
		func(*sim.Op) string { return "OK\n" })
}

// get KEY: etcdctl get.
func (c *Console) get(args []string, bg bool) error {
	f := newFlags("get")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	prefix := f.Bool("prefix", false, "get every key with the prefix KEY")
	keysOnly := f.Bool("keys-only", false, "print only the keys")
	valueOnly := f.Bool("print-value-only", false, "print only the values")
	consistency := f.String("consistency", "l", "l (linearizable: ReadIndex through the leader) or s (serializable: local, maybe stale)")
	rest, err := f.parse(args, 1, 1, `get KEY [--prefix] [--keys-only] [--consistency=l|s] [--endpoints M]`)
	if err != nil {
		return err
	}
	if rest[0] == "" && !*prefix {
		return fmt.Errorf("key is not provided (to get every key: get \"\" --prefix)")
	}
	ser := false
	switch *consistency {
	case "l":
	case "s":
		ser = true
	default:
		return fmt.Errorf("unknown consistency flag %q (want l or s)", *consistency)
	}
	if *f.writeOut == "table" {
		return fmt.Errorf("table output is not supported for get (use simple or json)")
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	format := *f.writeOut
	return c.request(sim.Command{Kind: sim.CmdGet, Via: from, By: c.sender(*via), Timeout: c.timeout(*via), Key: rest[0], Prefix: *prefix, KeysOnly: *keysOnly, Serializable: ser}, bg,
		func(op *sim.Op) string { return formatGet(op, format, *keysOnly, *valueOnly) })
}

func formatGet(op *sim.Op, format string, keysOnly, valueOnly bool) string {
	var b strings.Builder
	if format == "json" {
		type kv struct {
			Key            string `json:"key"`
			CreateRevision int64  `json:"create_revision"`
			ModRevision    int64  `json:"mod_revision"`
			Version        int64  `json:"version"`
			Value          string `json:"value,omitempty"`
		}
		resp := struct {
			Header struct {
				Revision int64 `json:"revision"`
			} `json:"header"`
			Kvs   []kv `json:"kvs,omitempty"`
			Count int  `json:"count"`
		}{Count: len(op.KVs)}
		resp.Header.Revision = op.Revision
		for _, x := range op.KVs {
			k := kv{Key: base64.StdEncoding.EncodeToString([]byte(x.Key)), CreateRevision: x.CreateRevision,
				ModRevision: x.ModRevision, Version: x.Version}
			if !keysOnly {
				k.Value = base64.StdEncoding.EncodeToString([]byte(x.Value))
			}
			resp.Kvs = append(resp.Kvs, k)
		}
		out, _ := json.Marshal(resp)
		return string(out) + "\n"
	}
	for _, x := range op.KVs {
		// etcdctl prints the key, then the value; with --keys-only the
		// server sends no values, so an empty line follows each key.
		if !valueOnly {
			b.WriteString(x.Key + "\n")
		}
		if keysOnly {
			b.WriteString("\n")
		} else {
			b.WriteString(x.Value + "\n")
		}
	}
	if op.Stale {
		b.WriteString("# stale read: " + op.StaleNote + "\n")
	}
	return b.String()
}

// del KEY: etcdctl del.
func (c *Console) del(args []string, bg bool) error {
	f := newFlags("del")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	prefix := f.Bool("prefix", false, "delete every key with the prefix KEY")
	rest, err := f.parse(args, 1, 1, "del KEY [--prefix] [--endpoints M]")
	if err != nil {
		return err
	}
	if rest[0] == "" && !*prefix {
		return fmt.Errorf("key is not provided")
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	return c.request(sim.Command{Kind: sim.CmdDelete, Via: from, By: c.sender(*via), Timeout: c.timeout(*via), Key: rest[0], Prefix: *prefix}, bg,
		func(op *sim.Op) string { return fmt.Sprintf("%d\n", op.Deleted) })
}

// watch KEY: etcdctl watch. In the foreground it streams until interrupted
// (or for --for); with & it streams in the background.
func (c *Console) watch(args []string, bg bool) error {
	f := newFlags("watch")
	via := f.String("via", "", "watch from this client (a kube-apiserver) or member")
	prefix := f.Bool("prefix", false, "watch every key with the prefix KEY")
	forFlag := f.String("for", "", "stop watching after this much virtual time")
	rest, err := f.parse(args, 1, 1, "watch KEY [--prefix] [--for DUR] [&]")
	if err != nil {
		return err
	}
	if rest[0] == "" && !*prefix {
		return fmt.Errorf("key is not provided")
	}
	if c.opts.Mode == Async {
		// Nothing blocks in Async mode, so every watch streams as a
		// numbered job, which unwatch N can stop.
		bg = true
	}
	var d time.Duration
	if f.Changed("for") {
		if d, err = duration(*forFlag, "--for"); err != nil {
			return err
		}
		if err := c.checkRunTime("watch --for", d); err != nil {
			return err
		}
	}
	dur := &d
	if !bg && *dur == 0 && c.opts.Mode == Blocking && !c.opts.Interactive {
		return fmt.Errorf("a watch never ends by itself, and a script cannot press Ctrl-C: add --for DUR to watch for that long, or & to watch in the background")
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	// The watch is labelled so that stopping it (Ctrl-C, --for, unwatch)
	// can cancel it in the simulation, as etcdctl closing its stream does.
	label := fmt.Sprintf("watch-%d", len(c.w.Ops())+1)
	op, err := c.do(sim.Command{Kind: sim.CmdWatch, Via: from, By: c.sender(*via), Key: rest[0], Prefix: *prefix, Label: label})
	if err != nil {
		return err
	}
	j := &job{watch: label}
	printed := 0
	j.poll = func() bool {
		for ; printed < len(op.Events); printed++ {
			e := op.Events[printed]
			c.output(j, e.Type+"\n"+e.KV.Key+"\n"+e.KV.Value+"\n")
		}
		if op.Canceled {
			return true // the user stopped it
		}
		if op.Status == sim.OpError || op.Status == sim.OpTimeout {
			c.output(j, "watch was canceled ("+op.Err+")\n")
			return true
		}
		return false
	}
	if *dur > 0 {
		j.deadline = c.w.Now().Add(*dur)
	}
	if bg || c.opts.Mode == Async {
		if bg {
			c.nextJob++
			j.id, j.background = c.nextJob, true
		}
		c.jobs = append(c.jobs, j)
		if bg {
			c.printf("[%d] watching %s from %s in the background (stop it with: unwatch %d)\n", j.id, rest[0], from, j.id)
		}
		return nil
	}
	return c.stream(j)
}

// stream runs a foreground watch: virtual time passes in slices, paced by
// Options.Pace, until the watch ends, its --for passes, or the user
// interrupts it.
func (c *Console) stream(j *job) error {
	for {
		if j.poll() {
			return nil
		}
		if j.deadline != 0 && c.w.Now() >= j.deadline {
			return c.cancel(j)
		}
		if c.opts.Interrupted != nil && c.opts.Interrupted() {
			c.println("") // the terminal echoed ^C without a newline
			return c.cancel(j)
		}
		slice := streamSlice
		if j.deadline != 0 && c.w.Now().Add(slice) > j.deadline {
			slice = time.Duration(j.deadline - c.w.Now())
		}
		if err := c.advance(slice); err != nil {
			return err
		}
		if c.opts.Pace != nil {
			c.opts.Pace(slice)
		}
	}
}

// cancel closes a watch job's stream in the simulation, if it is still open.
func (c *Console) cancel(j *job) error {
	op := c.w.Op(j.watch)
	if j.watch == "" || op == nil || op.Status != sim.OpOK && op.Status != sim.OpPending {
		return nil
	}
	_, err := c.do(sim.Command{Kind: sim.CmdCancel, Label: j.watch})
	return err
}

// unwatch [N]: stop a background watch, or all: its stream is closed.
func (c *Console) unwatch(args []string, _ bool) error {
	f := newFlags("unwatch")
	rest, err := f.parse(args, 0, 1, "unwatch [N]")
	if err != nil {
		return err
	}
	n := 0
	for _, j := range c.jobs {
		if len(rest) == 0 || rest[0] == fmt.Sprint(j.id) {
			j.stopped = true
			if err := c.cancel(j); err != nil {
				return err
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("no background job %s", strings.Join(rest, ""))
	}
	c.Poll()
	c.printf("stopped %d background job(s)\n", n)
	return nil
}
