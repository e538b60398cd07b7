package slurm

import (
	"slices"
	"testing"
)

func TestIndexes(t *testing.T) {
	tests := []struct {
		spec string
		want []int
	}{
		{"3", []int{3}},
		{"2-5", []int{2, 3, 4, 5}},
		{"1,4,7-8", []int{1, 4, 7, 8}},
		{"[0-3%2]", []int{0, 1, 2, 3}},
		{"N/A", nil},
		{"5-2", nil},
		{"0-99999999", nil}, // not expanded past a million
		{"", nil},
	}
	for _, tt := range tests {
		if got := indexes(tt.spec); !slices.Equal(got, tt.want) {
			t.Errorf("indexes(%q) = %v, want %v", tt.spec, got, tt.want)
		}
	}
}

func TestNodeUsable(t *testing.T) {
	tests := []struct {
		state string
		want  bool
	}{
		{"idle", true}, {"mixed", true}, {"allocated", true}, {"completing", true},
		{"idle*", false}, {"completing*", false}, {"down", false}, {"down*", false},
		{"drained", false}, {"draining", false}, {"unknown", false}, {"fail", false},
	}
	for _, tt := range tests {
		if got := (Node{Name: "n", State: tt.state}).Usable(); got != tt.want {
			t.Errorf("%s: usable %v, want %v", tt.state, got, tt.want)
		}
	}
}

func TestFields(t *testing.T) {
	f := Fields("JobId=12 ArrayJobId=11 ArrayTaskId=1 JobState=TIMEOUT Reason=TimeLimit JobId=99")
	if f["JobId"] != "12" || f["ArrayTaskId"] != "1" || f["JobState"] != "TIMEOUT" || f["Reason"] != "TimeLimit" {
		t.Fatalf("Fields = %v", f)
	}
}

// TestJobArgs: sbatch gets the options given, the export list and the
// script last; options left empty are not passed.
func TestJobArgs(t *testing.T) {
	j := Job{Script: "/r/.bench/job.sh", Name: "langhost-bench", Array: "0-3", Export: []string{"PATH", "HOME"},
		Partition: "short", Time: "30", CPUsPerTask: 2, Mem: "4G", Extra: []string{"--qos=low"}}
	want := []string{"--parsable", "--array=0-3", "--export=PATH,HOME", "--job-name=langhost-bench", "--partition=short",
		"--time=30", "--mem=4G", "--cpus-per-task=2", "--qos=low", "/r/.bench/job.sh"}
	if got := j.Args(); !slices.Equal(got, want) {
		t.Errorf("Args =\n%q\nwant\n%q", got, want)
	}
	if got := (Job{Script: "s", Array: "1", Export: []string{"NONE"}}).Args(); !slices.Equal(got, []string{"--parsable", "--array=1", "--export=NONE", "s"}) {
		t.Errorf("Args of a bare job = %q", got)
	}
}
