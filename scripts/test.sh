#!/usr/bin/env bash
# The whole test suite: installs the pinned tools it needs, then runs every Go test.
# Tests fail (never skip) when a required tool is missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# A machine without Go of its own gets the toolchain and module mirror from ../shared/go.
if ! command -v go >/dev/null 2>&1 && [ -f ../shared/go/env.sh ]; then
	# shellcheck disable=SC1091
	source ../shared/go/env.sh
fi
scripts/install-tools.sh
# Real Slurm and a real browser for the bench tests (internal/slurmtest,
# internal/chromiumtest): installed from Debian when missing, or fail here, loudly.
scripts/install-test-packages.sh
export PATH="$root/.tools/bin:$PATH"
go test -count=1 -timeout 30m "$@" ./...
