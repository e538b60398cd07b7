#!/usr/bin/env bash
# The whole test suite: installs the pinned tools it needs, then runs every Go test.
# Tests fail (never skip) when a required tool is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/install-tools.sh
export PATH="$root/.tools/bin:$PATH"
go test -count=1 -timeout 30m "$@" ./...
