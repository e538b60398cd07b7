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
# The bench's Slurm tests start a single-node cluster from Debian's slurm-wlm
# (internal/slurmtest); install it on a clean machine, or fail here, loudly.
if ! command -v sbatch >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1; then
	echo "test.sh: installing Debian's slurm-wlm (the Slurm tests need it)" >&2
	if ! { apt-get -o DPkg::Lock::Timeout=600 update -q && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q slurm-wlm; } >&2; then
		echo "test.sh: apt-get install slurm-wlm failed (root and Debian's archive are needed); the Slurm tests fail without it" >&2
		exit 1
	fi
fi
export PATH="$root/.tools/bin:$PATH"
go test -count=1 -timeout 30m "$@" ./...
