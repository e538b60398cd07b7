//go:build linux

package slurmtest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langhost/langhost/internal/slurmtest"
)

// TestClusterRunsAJobArray starts a cluster and runs a two-task array
// through sbatch: each task writes its index where the test can read it.
func TestClusterRunsAJobArray(t *testing.T) {
	c := slurmtest.Start(t, slurmtest.Options{})
	out := t.TempDir()
	script := filepath.Join(out, "job.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $SLURM_ARRAY_TASK_ID > \""+out+"/task-$SLURM_ARRAY_TASK_ID\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	id, err := c.Command("sbatch", "--parsable", "--array=0-1", "--output=/dev/null", script).Output()
	if err != nil {
		t.Fatalf("sbatch: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, n := range []string{"0", "1"} {
		for {
			data, err := os.ReadFile(filepath.Join(out, "task-"+n))
			if err == nil && strings.TrimSpace(string(data)) == n {
				break
			}
			if time.Now().After(deadline) {
				q, _ := c.Command("scontrol", "-o", "show", "job", strings.TrimSpace(string(id))).CombinedOutput()
				t.Fatalf("task %s of job %s wrote nothing within 60s:\n%s", n, id, q)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
