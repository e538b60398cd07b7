#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real when they are missing:
# slurm-wlm (munge, slurmctld, slurmd: internal/slurmtest's single-node
# cluster), chromium (internal/chromiumtest renders the bench's HTML
# report) and pytest (TestWorkspaceCodeNeedsConsent runs a hostile
# conftest.py with it). Only Debian's own packages, in one apt-get update and one install.
# It needs root on a Debian machine; anywhere else it fails loudly, since the
# tests fail (never skip) without them.
set -euo pipefail

missing=()
if ! command -v sbatch >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1 ||
	! command -v slurmd >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
	missing+=(slurm-wlm)
fi
if ! command -v chromium >/dev/null 2>&1; then
	missing+=(chromium)
fi
if ! command -v pytest >/dev/null 2>&1; then
	missing+=(python3-pytest)
fi
if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "install-test-packages: ${missing[*]} missing and this is not a Debian machine: install them so that sbatch, slurmctld, slurmd, munged, chromium and pytest are on PATH" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-test-packages: ${missing[*]} missing: run 'apt-get install -y ${missing[*]}' as root (or this script as root)" >&2
	exit 1
fi
echo "install-test-packages: apt-get install ${missing[*]}" >&2
# dpkg's lock may be held by another installer on a shared machine: wait for it.
apt-get -o DPkg::Lock::Timeout=600 update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q "${missing[@]}" >&2
