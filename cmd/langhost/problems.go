package main

import (
	"fmt"

	"github.com/langhost/langhost/host/spec"
)

// warnProblems tells the user on stderr which spec files were skipped, so
// a typo in a spec never silently drops a language.
func warnProblems(f *factory, problems []*spec.FileError) {
	for _, p := range problems {
		fmt.Fprintf(f.io.ErrOut, "warning: skipped %v\n", p)
	}
}
