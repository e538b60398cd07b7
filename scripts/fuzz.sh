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
		# A finding writes its input under testdata/fuzz and always fails. A
		# failure that leaves none (the engine losing a worker on a loaded
		# machine) is shown and tried once more.
		for attempt in 1 2; do
			before=$( (find "$pkg/testdata/fuzz/$target" -type f 2>/dev/null || true) | wc -l)
			if out=$(go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 5s "$pkg" 2>&1); then
				break
			fi
			echo "$out" >&2
			after=$( (find "$pkg/testdata/fuzz/$target" -type f 2>/dev/null || true) | wc -l)
			if [ "$attempt" = 2 ] || [ "$after" != "$before" ]; then
				exit 1
			fi
			echo "fuzz: $target failed without a finding; trying once more" >&2
		done
	done
done
