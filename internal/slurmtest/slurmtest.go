//go:build linux

// Package slurmtest starts a single-node Slurm cluster of a test's own:
// munged, slurmctld and slurmd from Debian's slurm-wlm (22.05), with a
// configuration, a munge socket, ports, spool and state in a temporary
// directory, so that two test processes never share a cluster. Start
// installs slurm-wlm when it is missing and fails the test (never skips)
// when that is impossible. Cleanup cancels the cluster's jobs and stops
// the daemons by their PIDs.
package slurmtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Cluster is a running single-node cluster.
type Cluster struct {
	// Dir holds the configuration, munge's key and socket, spool, state
	// and logs.
	Dir string
	// Conf is the slurm.conf: SLURM_CONF for every Slurm command.
	Conf string
	// Partition is the cluster's one partition.
	Partition string
	// Node is the one node (the host's name).
	Node string

	t      testing.TB
	munged *exec.Cmd
	ctld   *exec.Cmd
	slurmd *exec.Cmd
}

// Packages are what Install puts on a machine that lacks Slurm: Debian's
// package, which pulls in munge.
const Packages = "slurm-wlm"

var installOnce = sync.OnceValue(install)

// install installs slurm-wlm with apt-get when sbatch is missing.
func install() error {
	missing := false
	for _, cmd := range []string{"sbatch", "squeue", "scontrol", "scancel", "sinfo", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(cmd); err != nil {
			missing = true
		}
	}
	if !missing {
		return nil
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("slurm-wlm is not installed and installing it needs root: run `apt-get install -y %s` as root", Packages)
	}
	// Another process may hold dpkg's lock: wait for it rather than fail.
	lock := "-o=DPkg::Lock::Timeout=600"
	for _, args := range [][]string{{"apt-get", lock, "update"}, {"apt-get", lock, "install", "-y", Packages}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, tail(out))
		}
	}
	return nil
}

func tail(b []byte) []byte {
	if len(b) > 4000 {
		return b[len(b)-4000:]
	}
	return b
}

// Options tune the cluster's configuration.
type Options struct {
	// KillWait is the time between SIGTERM and SIGKILL of a cancelled or
	// timed-out job (Slurm's default is 30s).
	KillWait time.Duration
}

// Start installs Slurm when missing and starts a cluster, stopped when
// the test ends. SLURM_CONF is set for the test (t.Setenv), so Slurm's
// commands and what the test starts talk to this cluster.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Fatalf("slurmtest: Slurm clusters are started on Linux only, not %s", runtime.GOOS)
	}
	if err := installOnce(); err != nil {
		t.Fatalf("slurmtest: %v", err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	// munged refuses a socket in a directory others may write: a private
	// directory of our own, not t.TempDir's parent chain alone.
	dir, err := os.MkdirTemp("", "slurmtest-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Dir: dir, Conf: filepath.Join(dir, "slurm.conf"), Partition: "test", Node: host, t: t}
	t.Cleanup(func() {
		c.stop()
		if !t.Failed() {
			os.RemoveAll(dir)
		} else {
			t.Logf("slurmtest: the cluster's logs are kept in %s", filepath.Join(dir, "log"))
		}
	})
	for _, d := range []string{"spool", "state", "log", "munge"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "munge"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.startMunge()

	ports := freePorts(t, 2)
	killWait := max(int(opts.KillWait/time.Second), 1)
	if opts.KillWait == 0 {
		killWait = 5
	}
	conf := fmt.Sprintf(`ClusterName=slurmtest
SlurmctldHost=%[1]s
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
AuthType=auth/munge
AuthInfo=socket=%[2]s/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SlurmctldPidFile=%[2]s/slurmctld.pid
SlurmdPidFile=%[2]s/slurmd.pid
SlurmdSpoolDir=%[2]s/spool
StateSaveLocation=%[2]s/state
SlurmUser=root
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SlurmctldLogFile=%[2]s/log/slurmctld.log
SlurmdLogFile=%[2]s/log/slurmd.log
KillWait=%[5]d
MinJobAge=600
SchedulerParameters=defer_batch=0
NodeName=%[1]s CPUs=%[6]d RealMemory=2000 State=UNKNOWN
PartitionName=test Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, dir, ports[0], ports[1], killWait, runtime.NumCPU())
	if err := os.WriteFile(c.Conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_CONF", c.Conf)
	c.ctld = c.daemon("slurmctld", "-D", "-i", "-f", c.Conf)
	c.slurmd = c.daemon("slurmd", "-D", "-f", c.Conf)
	c.waitIdle()
	return c
}

// startMunge starts munged on a socket of the cluster's own, with a copy
// of the key Debian's package made.
func (c *Cluster) startMunge() {
	key, err := os.ReadFile("/etc/munge/munge.key")
	if err != nil {
		c.t.Fatalf("slurmtest: munge's key (made by the munge package): %v", err)
	}
	m := filepath.Join(c.Dir, "munge")
	if err := os.WriteFile(filepath.Join(m, "key"), key, 0o600); err != nil {
		c.t.Fatal(err)
	}
	c.munged = c.daemon("munged", "-F", "--force", "--socket="+filepath.Join(m, "socket"),
		"--key-file="+filepath.Join(m, "key"), "--pid-file="+filepath.Join(m, "pid"),
		"--seed-file="+filepath.Join(m, "seed"), "--log-file="+filepath.Join(c.Dir, "log", "munged.log"))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(m, "socket")); err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("slurmtest: munged did not create its socket within 10s:\n%s", c.logs("munged"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// daemon starts a daemon in the foreground, as our child, so its PID is
// known for the cleanup.
func (c *Cluster) daemon(name string, args ...string) *exec.Cmd {
	out, err := os.Create(filepath.Join(c.Dir, "log", name+".out"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	// Its own process group: a test's Ctrl-C goes to the test, and the
	// cleanup decides how the daemon ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("slurmtest: start %s: %v", name, err)
	}
	return cmd
}

// waitIdle waits for the node to be idle: the cluster takes jobs.
func (c *Cluster) waitIdle() {
	deadline := time.Now().Add(60 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		out, err := c.Command("sinfo", "-h", "-n", c.Node, "-o", "%t").Output()
		last = strings.TrimSpace(string(out))
		if err == nil && (last == "idle" || last == "mix" || last == "alloc") {
			return
		}
		time.Sleep(250 * time.Millisecond)
	}
	c.t.Fatalf("slurmtest: node %s is %q, not idle, after 60s\n%s\n%s", c.Node, last, c.logs("slurmctld"), c.logs("slurmd"))
}

// Command returns a Slurm command (sinfo, scontrol, ...) run against the
// cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	return cmd
}

// StateDir is slurmctld's state: its copies of the job scripts and of the
// jobs' environments.
func (c *Cluster) StateDir() string { return filepath.Join(c.Dir, "state") }

// StopSlurmd stops the node's daemon, as a crash would: jobs can no
// longer start.
func (c *Cluster) StopSlurmd() {
	stopProc(c.slurmd)
	c.slurmd = nil
}

// logs returns the end of a daemon's log files, for failure messages.
func (c *Cluster) logs(name string) string {
	var b bytes.Buffer
	for _, f := range []string{name + ".log", name + ".out"} {
		data, err := os.ReadFile(filepath.Join(c.Dir, "log", f))
		if err == nil {
			fmt.Fprintf(&b, "--- %s\n%s\n", f, tail(data))
		}
	}
	return b.String()
}

// stop cancels the cluster's jobs, waits briefly for them to end (their
// slurmstepd are slurmd's children) and stops the daemons.
func (c *Cluster) stop() {
	if c.ctld != nil && c.slurmd != nil {
		_ = c.Command("scancel", "--full", "--partition", c.Partition).Run()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		for ctx.Err() == nil {
			out, err := c.Command("squeue", "-h", "-o", "%i").Output()
			if err != nil || len(bytes.TrimSpace(out)) == 0 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		cancel()
	}
	for _, p := range []*exec.Cmd{c.slurmd, c.ctld, c.munged} {
		stopProc(p)
	}
}

// stopProc sends SIGTERM, then SIGKILL after 10s, and reaps the process.
func stopProc(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// freePorts returns n TCP ports that were free a moment ago.
func freePorts(t testing.TB, n int) []int {
	var out []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}
