#!/usr/bin/env bash
# Measures the performance targets of the issues and prints one line each.
# Usage: scripts/bench.sh [runs]   (runs of each whole-process measurement, default 101)
#   LH_BENCH_ONLY=issue20   only the rows of issue 20 (langhost's own cost)
#   LH_BENCH_MEM_CALLS=N    calls before each memory reading of row 3 (default: runs;
#                            the issue's figure is 250, read after 250 and after 500)
#   LH_BENCH_BEFORE=<commit> also measures the rows of issue 20 for a binary
#                            built at <commit>, for a before/after table
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${1:-101}
export PATH="$root/.tools/bin:$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/langhost-cgo" ./cmd/langhost
CGO_ENABLED=0 go build -o "$tmp/langhost" ./cmd/langhost # static: no dynamic loader at start-up
if [ -n "${LH_BENCH_BEFORE:-}" ]; then
	git worktree add -q --detach "$tmp/before-src" "$LH_BENCH_BEFORE"
	(cd "$tmp/before-src" && CGO_ENABLED=0 go build -o "$tmp/langhost-before" ./cmd/langhost)
	git worktree remove --force "$tmp/before-src"
fi
only20=false
[ "${LH_BENCH_ONLY:-}" = issue20 ] && only20=true
mkdir -p "$tmp/specs" "$tmp/ws"
cat >"$tmp/specs/bench.yaml" <<'YAML'
language: {id: bench}
tools:
  noop: {command: "true", description: does nothing}
YAML

# Issue 20, row 1: what `langhost run` adds to the command it runs. The
# three are interleaved in one loop so that a load change hits them alike:
# the tool's own command (true) run directly, langhost run of it, and
# `langhost --version`, the floor of starting this binary at all.
runner_overhead() {
	python3 - "$runs" "$1" "$tmp/ws" "$tmp/specs" <<'PY'
import statistics, subprocess, sys, time
runs, exe, ws, specs = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
cmds = {
    "direct": ["true"],
    "run": [exe, "--workspace", ws, "--languages", specs, "--format", "json", "run", "bench.noop"],
    "version": [exe, "--version"],
}
times = {k: [] for k in cmds}
for _ in range(runs):
    for k, cmd in cmds.items():
        start = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[k].append((time.perf_counter() - start) * 1000)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}")
m = {k: statistics.median(v) for k, v in times.items()}
print(f"runner overhead ({exe.rsplit('/', 1)[-1]}): langhost run bench.noop {m['run']:.2f} ms vs true {m['direct']:.2f} ms "
      f"=> {m['run'] - m['direct']:.2f} ms added, {m['run'] / m['direct']:.2f}x (target <= 5 ms added); "
      f"floor langhost --version {m['version']:.2f} ms (medians of {runs}, interleaved)")
PY
}
for bin in ${LH_BENCH_BEFORE:+langhost-before} langhost langhost-cgo; do
	runner_overhead "$tmp/$bin"
done

$only20 || {
go test ./host/spec -run '^$' -bench 'BenchmarkLoad200$' -benchtime 50x | grep Benchmark
go test ./parsers -run '^$' -bench . -benchtime 3x | grep Benchmark
go test ./cmd/langhost -run '^$' -bench 'MCPToolCallOverhead|RunNoop' -benchtime 500x | grep Benchmark || true
go test ./host/semantictool -run '^$' -bench . -benchtime 100x | grep Benchmark
go test ./host/plugins -run '^$' -bench . -benchtime 20x | grep Benchmark
go test ./plugins/semantic -run '^$' -bench . -benchtime 50x | grep Benchmark
}

# Semantic calls from the CLI, end to end (process start to exit): the
# first call starts the workspace's daemon and its language server (cold);
# later calls are served by it (warm, target < 50 ms). --no-daemon is the
# in-process path, which starts the plugin and server on every call.
# C# runs against the scripted Roslyn peer (no .NET here).
mkdir -p "$tmp/rbin" "$tmp/rt"
$only20 || go build -o "$tmp/rbin/roslyn-language-server" ./internal/lsptest/fakeroslyn
gocache=$(go env GOCACHE)
semantic_env=(env "PATH=$tmp/rbin:$PATH" "XDG_RUNTIME_DIR=$tmp/rt" "XDG_CACHE_HOME=$tmp/cache" "GOCACHE=$gocache"
	"XDG_CONFIG_HOME=$tmp/config" LANGHOST_DAEMON=1)
trap '"${semantic_env[@]}" "$tmp/langhost" daemon stop --all >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT

# semantic_bench NAME FIXTURE TOOL KEY=VALUE...
semantic_bench() {
	local name=$1 ws="$tmp/ws-$1"
	cp -r "$2" "$ws"
	shift 2
	"${semantic_env[@]}" python3 - "$tmp/langhost" "$ws" "$name" "$runs" "$@" <<'PY'
import statistics, subprocess, sys, time
exe, ws, name, runs, args = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
def run(*argv):
    start = time.perf_counter()
    p = subprocess.run([exe, "--workspace", ws, "--format", "json", *argv], cwd=ws, capture_output=True)
    ms = (time.perf_counter() - start) * 1000
    if p.returncode != 0 or b"running the call in this process" in p.stderr:
        sys.exit(f"{name}: langhost {' '.join(argv)}: exit {p.returncode}\n{p.stdout[:800]}\n{p.stderr[-800:]}")
    return ms
cold_runs = 3
cold, warm, local, start = [], [], [], []
for _ in range(cold_runs):
    run("daemon", "stop")
    cold.append(run("run", *args))
    # Warm is the steady state: the server's own work after its first
    # answer (gopls indexes the module cache) would otherwise be measured.
    time.sleep(3)
    for _ in range(max(runs // cold_runs, 1)):
        warm.append(run("run", *args))
        # The same process start, config and spec loading without the call.
        start.append(run("validate-input", *args))
    local.append(run("run", "--no-daemon", *args))
run("daemon", "stop")
med = lambda xs: f"{statistics.median(xs):.1f}"
print(f"langhost run {args[0]} ({name}): warm {med(warm)} ms (target < 50 ms, median of {len(warm)}; "
      f"validate-input, the CLI without the call: {med(start)} ms), "
      f"cold first call {med(cold)} ms, --no-daemon {med(local)} ms (medians of {cold_runs})")
PY
}
$only20 || {
semantic_bench go plugins/semantic/testdata/gomod go.find_references symbol=TotalArea
semantic_bench python plugins/semantic/testdata/pypkg python.find_references symbol=greet
semantic_bench csharp internal/lsptest/roslyntest/testdata/Shapes csharp.find_references symbol=IShape kind=interface
}

# Issue 20, row 2: a warm CLI semantic call through the daemon next to the
# same request on a warm raw LSP connection (gopls over stdio, driven from
# python3), interleaved in one loop, as a ratio (target <= 1.3x).
# LH_BENCH_GO_WS, LH_BENCH_GO_FILE and LH_BENCH_GO_SYMBOL measure another
# module (the issue's figures are for cli/cli, FILE relative to WS).
raw_ws=${LH_BENCH_GO_WS:-plugins/semantic/testdata/gomod}
raw_file=${LH_BENCH_GO_FILE:-calc/calc.go}
raw_symbol=${LH_BENCH_GO_SYMBOL:-TotalArea}
warm_vs_raw() {
	rm -rf "$tmp/ws-raw"
	cp -r "$raw_ws" "$tmp/ws-raw"
	"${semantic_env[@]}" python3 - "$1" "$tmp/ws-raw" "$raw_file" "$raw_symbol" "$runs" <<'PY'
import json, os, re, statistics, subprocess, sys, time
exe, ws, rel, symbol, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
path = os.path.join(ws, rel)
text = open(path).read()
m = re.search(r"^(?:func|type|var|const)\s+(?:\([^)]*\)\s*)?(" + re.escape(symbol) + r")\b", text, re.M)
if not m:
    sys.exit(f"{rel}: no declaration of {symbol}")
line = text.count("\n", 0, m.start(1))
col = m.start(1) - (text.rfind("\n", 0, m.start(1)) + 1)  # ASCII: bytes are UTF-16 units
uri = "file://" + path

gopls = subprocess.Popen(["gopls"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
next_id = 0
def send(msg):
    body = json.dumps(msg).encode()
    gopls.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    gopls.stdin.flush()
def read():
    n = 0
    while True:
        h = gopls.stdout.readline().strip()
        if not h:
            break
        if h.lower().startswith(b"content-length:"):
            n = int(h.split(b":")[1])
    return json.loads(gopls.stdout.read(n))
def request(method, params):
    global next_id
    next_id += 1
    send({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
    while True:
        msg = read()
        if msg.get("id") == next_id and "method" not in msg:
            return msg
        if "method" in msg and "id" in msg:  # a server request: answer it empty
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
request("initialize", {"processId": os.getpid(), "rootUri": "file://" + ws, "capabilities": {},
                       "workspaceFolders": [{"uri": "file://" + ws, "name": "ws"}]})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "go", "version": 1, "text": text}}})
refs = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}, "context": {"includeDeclaration": True}}

def cli():
    p = subprocess.run([exe, "--workspace", ws, "--format", "json", "run", "go.find_references", "symbol=" + symbol],
                       cwd=ws, capture_output=True)
    if p.returncode != 0 or b"running the call in this process" in p.stderr:
        sys.exit(f"langhost run go.find_references: exit {p.returncode}\n{p.stderr[-800:]}")
def raw():
    r = request("textDocument/references", refs)
    if "error" in r:
        sys.exit(f"gopls references: {r['error']}")
# Both warm: the daemon and gopls have answered once, then settled.
cli(); raw(); time.sleep(3); cli(); raw()
t_cli, t_raw = [], []
for _ in range(runs):
    for f, ts in ((cli, t_cli), (raw, t_raw)):
        start = time.perf_counter()
        f()
        ts.append((time.perf_counter() - start) * 1000)
request("shutdown", None)
send({"jsonrpc": "2.0", "method": "exit"})
gopls.wait(10)
subprocess.run([exe, "--workspace", ws, "daemon", "stop"], capture_output=True)
c, r = statistics.median(t_cli), statistics.median(t_raw)
print(f"warm semantic call ({exe.rsplit('/', 1)[-1]}): langhost run go.find_references {c:.1f} ms (process start to exit, through the daemon) "
      f"vs raw gopls references on a warm connection {r:.1f} ms => {c / r:.2f}x (target <= 1.3x, medians of {runs}, interleaved, {rel} {symbol})")
PY
}

# Issue 20, row 4: the first tools/list of `langhost mcp` with an empty user
# cache (target <= 150 ms), from process start to the answer, as an MCP
# client over stdio sees it; interleaved with the same with a warm cache,
# and with `langhost --version`, the floor of starting the binary; `runs`
# times each (a single start varies by tens of ms with the machine's load).
first_list() {
	rm -rf "$tmp/ws-mcp"
	cp -r plugins/semantic/testdata/gomod "$tmp/ws-mcp"
	"${semantic_env[@]}" python3 - "$1" "$tmp/ws-mcp" "$runs" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, time
exe, ws, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
def first_list(cache):
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    start = time.perf_counter()
    p = subprocess.Popen([exe, "--workspace", ws, "mcp"], cwd=ws, env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def call(i, method, params):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            msg = json.loads(p.stdout.readline())
            if msg.get("id") == i:
                return msg
    call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    r = call(2, "tools/list", {})
    ms = (time.perf_counter() - start) * 1000
    if "result" not in r or not r["result"].get("tools"):
        sys.exit(f"tools/list: {str(r)[:800]}")
    p.stdin.close()
    p.wait(30)
    return ms, len(r["result"]["tools"])
def version():
    start = time.perf_counter()
    subprocess.run([exe, "--version"], stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000
n = runs
cold, warm, floor = [], [], []
with tempfile.TemporaryDirectory() as kept:
    first_list(kept)
    for _ in range(n):
        with tempfile.TemporaryDirectory() as empty:
            ms, tools = first_list(empty)
            cold.append(ms)
        warm.append(first_list(kept)[0])
        floor.append(version())
med = lambda xs: statistics.median(xs)
print(f"mcp first tools/list ({exe.rsplit('/', 1)[-1]}): empty cache {med(cold):.1f} ms (target <= 150 ms), warm cache {med(warm):.1f} ms, "
      f"floor langhost --version {med(floor):.1f} ms ({tools} tools, medians of {n}, interleaved; "
      f"fastest {min(cold):.1f}, {min(warm):.1f} and {min(floor):.1f} ms)")
PY
}

# Issue 20, row 3: the memory of each process of langhost's tree (MCP host,
# plugin, reaper, language server), RSS and PSS (which splits the pages the
# processes share, the executable's among them), after `runs` semantic
# calls over MCP, a pause, and as many again (flat or not). bench-scale
# measures the same beside raw gopls on golang.org/x/tools over 500
# queries: go run ./scripts/bench-scale (needs a network).
tree_memory() {
	rm -rf "$tmp/ws-mem"
	cp -r plugins/semantic/testdata/gomod "$tmp/ws-mem"
	"${semantic_env[@]}" python3 - "$1" "$tmp/ws-mem" "${LH_BENCH_MEM_CALLS:-$runs}" <<'PY'
import json, os, subprocess, sys, time
exe, ws, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = subprocess.Popen([exe, "--workspace", ws, "mcp"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
next_id = 0
def call(method, params):
    global next_id
    next_id += 1
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        msg = json.loads(p.stdout.readline())
        if msg.get("id") == next_id:
            return msg
call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
p.stdin.flush()
call("tools/list", {})
def queries():
    for _ in range(runs):
        r = call("tools/call", {"name": "go_find_references", "arguments": {"symbol": "TotalArea"}})
        if "result" not in r:
            sys.exit(f"tools/call: {str(r)[:800]}")
def tree():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                st = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            kids.setdefault(int(st[st.rindex(")") + 2:].split()[1]), []).append(int(d))
    out, todo = {}, [p.pid]
    while todo:
        pid = todo.pop()
        todo += kids.get(pid, [])
        try:
            args = open(f"/proc/{pid}/cmdline").read().split("\0")
            sm = {}
            for line in open(f"/proc/{pid}/smaps_rollup"):
                f = line.split()
                if len(f) == 3 and f[0].endswith(":"):
                    sm[f[0]] = int(f[1]) / 1024
        except OSError:
            continue
        if "langhost-reaper" in args:
            role = "reaper"
        elif os.path.basename(args[0]) == os.path.basename(exe) and "plugin" in args:
            role = "plugin"
        elif os.path.basename(args[0]) == os.path.basename(exe):
            role = "MCP host"
        else:
            role = "server " + os.path.basename(args[0])
        rss, pss = out.get(role, (0, 0))
        out[role] = (rss + sm["Rss:"], pss + sm["Pss:"])
    return out
queries()
a = tree()
time.sleep(7)
queries()
b = tree()
p.stdin.close()
p.wait(30)
name = exe.rsplit("/", 1)[-1]
own = lambda m, i: sum(v[i] for k, v in m.items() if not k.startswith("server"))
for role in b:
    ra, pa = a.get(role, (0, 0))
    rb, pb = b[role]
    print(f"tree memory ({name}): {role}: RSS {ra:.1f} -> {rb:.1f} MiB, PSS {pa:.1f} -> {pb:.1f} MiB (after {runs} calls -> after {2 * runs})")
print(f"tree memory ({name}): langhost's own (MCP host, plugin, reaper): RSS {own(a, 0):.1f} -> {own(b, 0):.1f} MiB, "
      f"PSS {own(a, 1):.1f} -> {own(b, 1):.1f} MiB (target <= 60 MiB, flat)")
PY
}

for bin in ${LH_BENCH_BEFORE:+langhost-before} langhost; do
	warm_vs_raw "$tmp/$bin"
	first_list "$tmp/$bin"
	tree_memory "$tmp/$bin"
done
