#!/usr/bin/env bash
# Runs every fuzz target of a parser of untrusted bytes for a short time
# (FUZZTIME, default 10s each). A crash fails the run and leaves its input
# under the package's testdata/fuzz, where `go test` replays it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10s}
# Each target's package, found from its source so that a new target is run
# without editing this script.
grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(' . | sort | while read -r file; do
	pkg=./$(dirname "${file#./}")
	for target in $(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | cut -d' ' -f2); do
		echo "fuzz: $pkg $target ($fuzztime)" >&2
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$pkg" >/dev/null
	done
done
