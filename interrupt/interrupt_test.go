package interrupt

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A nil Catcher is never interrupted: code that takes one runs without it.
func TestNilCatcher(t *testing.T) {
	var c *Catcher
	if c.Interrupted() || c.Signal() != nil || c.Err() != nil || c.Done() != nil {
		t.Fatal("a nil Catcher reported a signal")
	}
	c.Rearm()
	c.Stop()
}

// waitFor waits, a little, until the catcher has seen a signal.
func waitFor(t *testing.T, c *Catcher) {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the signal was not caught")
	}
}

func TestCatchesSIGINTAndSIGTERM(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		c := Catch()
		if c.Interrupted() {
			t.Fatal("interrupted before any signal")
		}
		if err := syscall.Kill(os.Getpid(), sig); err != nil {
			t.Fatal(err)
		}
		waitFor(t, c)
		if !c.Interrupted() || c.Signal() != sig {
			t.Fatalf("got %v, want %v", c.Signal(), sig)
		}
		err := c.Err()
		if !errors.Is(err, ErrInterrupted) || err.Error() != "interrupted by "+Name(sig) {
			t.Fatalf("Err() = %v", err)
		}
		c.Stop()
	}
}

// Rearm forgets the signal and catches the next one: the interactive
// shell's Ctrl-C stops a command, not the session.
func TestRearm(t *testing.T) {
	c := Catch()
	defer c.Stop()
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	waitFor(t, c)
	c.Rearm()
	if c.Interrupted() {
		t.Fatal("still interrupted after Rearm")
	}
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	waitFor(t, c)
}

// A second signal ends the process at once: a command that takes too long
// to reach a safe point can still be stopped. One that comes with the
// first is the same request (timeout(1) sends SIGINT to the command and
// again to its process group): it must not kill the command while it
// flushes. The child is this test binary, catching, then sent signals.
func TestSecondSignalKills(t *testing.T) {
	if os.Getenv("INTERRUPT_CHILD") == "1" {
		c := Catch()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-c.Done()
		syscall.Kill(os.Getpid(), syscall.SIGINT) // the same request, twice
		time.Sleep(Again / 2)
		syscall.Kill(os.Getpid(), syscall.SIGINT) // and still the same
		time.Sleep(Again/2 + 100*time.Millisecond)
		fmt.Println("survived the repeats")
		syscall.Kill(os.Getpid(), syscall.SIGINT) // asked again
		time.Sleep(10 * time.Second)
		os.Exit(0) // not reached: the second signal kills
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSecondSignalKills$")
	cmd.Env = append(os.Environ(), "INTERRUPT_CHILD=1")
	out, err := cmd.Output()
	if !strings.Contains(string(out), "survived the repeats") {
		t.Fatalf("a signal repeated within %s killed the process: %s", Again, out)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the child ended with %v, want killed by SIGINT", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("the child ended with %v, want killed by SIGINT", ee)
	}
}
