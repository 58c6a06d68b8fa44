package console

import (
	"fmt"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/server"
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
	return c.requestWith(cmd, bg, show, func(op *sim.Op) string { return "Error: " + op.Err + "\n" })
}

// requestWith is request with its own words for a failure. With --user,
// the console authenticates first (asUser).
func (c *Console) requestWith(cmd sim.Command, bg bool, show, fail func(op *sim.Op) string) error {
	if c.user != "" {
		return c.asUser(cmd, bg, show, fail)
	}
	return c.send(cmd, bg, show, fail)
}

// send is requestWith without --user.
func (c *Console) send(cmd sim.Command, bg bool, show, fail func(op *sim.Op) string) error {
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
			c.output(j, c.retryLog(cmd, op)+show(op))
		} else {
			c.output(j, c.retryLog(cmd, op)+c.failureLog(cmd, op)+fail(op))
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
	var pf etcdctl.PutFlags
	pf.Bind(f.FlagSet)
	rest, err := f.parse(args, 0, -1, "put KEY VALUE [--lease=ID] [--prev-kv] [--via CLIENT] [--endpoints M]")
	if err != nil {
		return err
	}
	req, err := pf.Request(rest)
	if err != nil {
		return err
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	format := *f.writeOut
	return c.request(sim.Command{Kind: sim.CmdPut, Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via), Req: server.Request{Put: req}}, bg,
		func(op *sim.Op) string { return formatPut(op, format) })
}

// get KEY [END]: etcdctl get.
func (c *Console) get(args []string, bg bool) error {
	f := newFlags("get")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	valueOnly := f.Bool("print-value-only", false, "print only the values")
	var gf etcdctl.GetFlags
	gf.Bind(f.FlagSet)
	rest, err := f.parse(args, 0, -1, `get KEY [END] [--prefix|--from-key] [--rev N] [--limit N] [--keys-only] [--count-only] [--sort-by T --order O] [--consistency=l|s] [--min-mod-rev N] [--max-mod-rev N] [--min-create-rev N] [--max-create-rev N] [--endpoints M]`)
	if err != nil {
		return err
	}
	req, err := gf.Request(rest)
	if err != nil {
		return err
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	format := *f.writeOut
	cmd := sim.Command{Kind: sim.CmdGet, Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via), Req: server.Request{Range: req}}
	return c.request(cmd, bg, func(op *sim.Op) string {
		// etcdctl checks these once the answer is in.
		switch {
		case gf.CountOnly && format != "fields":
			return "Error: --count-only is only for `--write-out=fields`\n"
		case *valueOnly && format != "simple":
			return "Error: print-value-only is only for `--write-out=simple`\n"
		}
		return formatGet(op, format, *valueOnly)
	})
}

// del KEY [END]: etcdctl del.
func (c *Console) del(args []string, bg bool) error {
	f := newFlags("del")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	var df etcdctl.DelFlags
	df.Bind(f.FlagSet)
	rest, err := f.parse(args, 0, -1, "del KEY [END] [--prefix|--from-key] [--prev-kv] [--endpoints M]")
	if err != nil {
		return err
	}
	req, err := df.Request(rest)
	if err != nil {
		return err
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	format := *f.writeOut
	return c.request(sim.Command{Kind: sim.CmdDelete, Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via), Req: server.Request{DeleteRange: req}}, bg,
		func(op *sim.Op) string { return formatDel(op, format) })
}

// watch KEY [END]: etcdctl watch. Like etcdctl's, the watch requires a
// leader: its member cancels it once it has found no leader for three
// election timeouts. In the foreground it streams until interrupted (or
// for --for); with & it streams in the background.
func (c *Console) watch(args []string, bg bool) error {
	f := newFlags("watch")
	via := f.String("via", "", "watch from this client (a kube-apiserver) or member")
	prefix := f.Bool("prefix", false, "Watch on a prefix if prefix is set")
	rev := f.Int64("rev", 0, "Revision to start watching")
	prevKV := f.Bool("prev-kv", false, "get the previous key-value pair before the event happens")
	progressNotify := f.Bool("progress-notify", false, "get periodic watch progress notification from server")
	forFlag := f.String("for", "", "stop watching after this much virtual time")
	rest, err := f.parse(args, 1, 2, "watch KEY [END] [--prefix] [--rev N] [--prev-kv] [--progress-notify] [--for DUR] [&]")
	if err != nil {
		return err
	}
	if rest[0] == "" && !*prefix {
		return fmt.Errorf("key is not provided")
	}
	end := ""
	if len(rest) == 2 {
		if *prefix {
			return fmt.Errorf("too many arguments")
		}
		end = rest[1]
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
	format := *f.writeOut
	// The watch is labelled so that stopping it (Ctrl-C, --for, unwatch)
	// can cancel it in the simulation, as etcdctl closing its stream does.
	label := fmt.Sprintf("watch-%d", c.w.OpCount()+1)
	wr := &etcdserverpb.WatchCreateRequest{Key: []byte(rest[0]), RangeEnd: []byte(end), StartRevision: *rev, PrevKv: *prevKV,
		ProgressNotify: *progressNotify}
	if *prefix {
		wr.Key, wr.RangeEnd = server.PrefixRange(rest[0])
	}
	wcmd := sim.Command{Kind: sim.CmdWatch, Via: from, By: c.sender(*via), Req: server.Request{Watch: wr},
		RequireLeader: true, Label: label}
	if c.user != "" {
		token, done, err := c.authenticateNow(wcmd, bg)
		if err != nil || done {
			return err
		}
		wcmd.Req.Token = token
	}
	op, err := c.do(wcmd)
	if err != nil {
		return err
	}
	j := &job{watch: label}
	j.poll = c.watchPoll(j, op, format)
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

// watchPoll is the poll of j, the job of the watch op: it prints the
// events (format as etcdctl's --write-out) and progress notifications
// that came since it last looked, and reports whether the watch has
// ended: stopped by the user, or canceled by the server.
func (c *Console) watchPoll(j *job, op *sim.Op, format string) func() bool {
	printed, progressed := 0, 0
	// progress prints the progress notifications that came before event
	// number before, as etcdctl prints them.
	progress := func(before int) {
		for ps := op.Progress(); progressed < len(ps) && ps[progressed].After <= before; progressed++ {
			c.output(j, fmt.Sprintf("progress notify: %d\n", ps[progressed].Header.Revision))
		}
	}
	return func() bool {
		for printed < len(op.Events()) {
			progress(printed)
			n := printed + 1
			for n < len(op.Events()) && op.Events()[n].Response == op.Events()[printed].Response {
				n++
			}
			if format == "table" {
				c.output(j, tableUnsupported)
				printed = len(op.Events())
				_ = c.cancel(j)
				return true
			}
			c.output(j, formatWatch(op.Events()[printed:n], format))
			printed = n
		}
		progress(printed)
		if op.Canceled {
			return true // the user stopped it
		}
		if op.Status == sim.OpError || op.Status == sim.OpTimeout {
			reason := op.Err
			if sim.WatchRefused(op) {
				reason = rpcError(op.Err) // etcd's cancel reason is the gRPC error
			}
			c.output(j, "watch was canceled ("+reason+")\nError: watch is canceled by the server\n")
			return true
		}
		return false
	}
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
		if c.interrupted() {
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
