#!/usr/bin/env bash
# Measures the performance targets of the issues and prints one line each.
# Usage: scripts/bench.sh [runs]   (runs of each whole-process measurement, default 101)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${1:-101}
export PATH="$root/.tools/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/langhost" ./cmd/langhost
mkdir -p "$tmp/specs" "$tmp/ws"
cat >"$tmp/specs/bench.yaml" <<'YAML'
language: {id: bench}
tools:
  noop: {command: "true", description: does nothing}
YAML

# median_ms CMD...: median wall time of runs executions, in milliseconds.
median_ms() {
	local times=()
	for _ in $(seq "$runs"); do
		local s e
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		times+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)]/1000}'
}

direct=$(median_ms true)
hosted=$(median_ms "$tmp/langhost" --workspace "$tmp/ws" --languages "$tmp/specs" --format json run bench.noop)
echo "runner overhead: langhost run bench.noop ${hosted} ms vs true ${direct} ms => $(awk "BEGIN {print $hosted - $direct}") ms added (target < 10 ms, median of $runs)"

go test ./host/spec -run '^$' -bench 'BenchmarkLoad200$' -benchtime 50x | grep Benchmark
go test ./parsers -run '^$' -bench . -benchtime 3x | grep Benchmark
for pkg in ./host/mcpserver ./host/plugins ./plugins/semantic; do
	if [ -d "$pkg" ]; then
		go test "$pkg" -run '^$' -bench . -benchtime 20x 2>/dev/null | grep Benchmark || true
	fi
done
