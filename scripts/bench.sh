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

go build -o "$tmp/langhost-cgo" ./cmd/langhost
CGO_ENABLED=0 go build -o "$tmp/langhost" ./cmd/langhost # static: no dynamic loader at start-up
mkdir -p "$tmp/specs" "$tmp/ws"
cat >"$tmp/specs/bench.yaml" <<'YAML'
language: {id: bench}
tools:
  noop: {command: "true", description: does nothing}
YAML

# median_ms CMD...: median wall time of runs executions, in milliseconds
# (timed from python3 so that no timing process is forked per run).
median_ms() {
	python3 - "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(runs):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times.append((time.perf_counter() - start) * 1000)
print(f"{statistics.median(times):.2f}")
PY
}

direct=$(median_ms /bin/true)
for bin in langhost langhost-cgo; do
	hosted=$(median_ms "$tmp/$bin" --workspace "$tmp/ws" --languages "$tmp/specs" --format json run bench.noop)
	echo "runner overhead ($bin): langhost run bench.noop ${hosted} ms vs /bin/true ${direct} ms => $(awk "BEGIN {print $hosted - $direct}") ms added (target < 10 ms, median of $runs)"
done

go test ./host/spec -run '^$' -bench 'BenchmarkLoad200$' -benchtime 50x | grep Benchmark
go test ./parsers -run '^$' -bench . -benchtime 3x | grep Benchmark
go test ./cmd/langhost -run '^$' -bench 'MCPToolCallOverhead|RunNoop' -benchtime 500x | grep Benchmark || true
go test ./host/semantictool -run '^$' -bench . -benchtime 100x | grep Benchmark
go test ./host/plugins -run '^$' -bench . -benchtime 20x | grep Benchmark
go test ./plugins/semantic -run '^$' -bench . -benchtime 50x | grep Benchmark
