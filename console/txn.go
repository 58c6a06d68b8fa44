package console

import (
	"fmt"
	"strings"

	"go.etcd.io/etcd/api/v3/etcdserverpb"

	"github.com/raftsim/raftsim/etcdctl"
	"github.com/raftsim/raftsim/sim"
)

// txnReader reads the lines of a transaction after `txn`, as etcdctl's txn
// reads its standard input: compares, a blank line, the requests of the
// success branch, a blank line, those of the failure branch, a blank line.
type txnReader struct {
	section     int // 0: compares, 1: success, 2: failure
	req         etcdserverpb.TxnRequest
	interactive bool
	err         error // the first bad line; the rest of the transaction is read and dropped
	cmd         sim.Command
	format      string
}

var txnPrompts = [...]string{"compares:", "success requests (get, put, del):", "failure requests (get, put, del):"}

// txn: etcdctl txn. The lines that follow are the transaction.
func (c *Console) txnVerb(args []string, _ bool) error {
	f := newFlags("txn")
	via := f.String("via", "", "send it from this client (a kube-apiserver) or member")
	interactive := f.BoolP("interactive", "i", false, "Input transaction in interactive mode")
	rest, err := f.parse(args, 0, -1, "txn [-i] [-w FORMAT] [--endpoints M], then the compares, the success requests and the failure requests, each ended by an empty line")
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("txn command does not accept argument")
	}
	from, err := c.via(f, *via)
	if err != nil {
		return err
	}
	c.txn = &txnReader{interactive: *interactive, format: *f.writeOut,
		cmd: sim.Command{Kind: sim.CmdTxn, Via: from, By: c.sender(*via), Timeout: c.timeout(f, *via)}}
	if c.txn.interactive {
		c.println(txnPrompts[0])
	}
	return nil
}

// txnLine takes one line of the transaction being read.
func (c *Console) txnLine(line string) error {
	t := c.txn
	line = strings.TrimSpace(line)
	if line == "" {
		t.section++
		if t.section < len(txnPrompts) {
			if t.interactive {
				c.println(txnPrompts[t.section])
			}
			return nil
		}
		c.txn = nil
		if t.err != nil {
			return t.err
		}
		t.cmd.Req.Txn = &t.req
		return c.request(t.cmd, false, func(op *sim.Op) string { return formatTxn(op, t.format) })
	}
	if t.err != nil {
		return nil
	}
	if t.section == 0 {
		cmp, err := etcdctl.ParseCompare(line)
		if err != nil {
			t.err = err
			return nil
		}
		t.req.Compare = append(t.req.Compare, cmp)
		return nil
	}
	op, err := etcdctl.ParseRequest(line)
	if err != nil {
		t.err = err
		return nil
	}
	if t.section == 1 {
		t.req.Success = append(t.req.Success, op)
	} else {
		t.req.Failure = append(t.req.Failure, op)
	}
	return nil
}

// InTxn reports whether the console is reading the lines of a transaction:
// the host shows no prompt then, as etcdctl reading its input shows none.
func (c *Console) InTxn() bool { return c.txn != nil }
