#!/usr/bin/env bash
# Installs the pinned external tools the test suite needs into ./.tools.
# Idempotent: a tool already at the pinned version is not reinstalled.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"

# Every toolchain the test suite runs is checked first, before anything is
# installed: a missing one fails here, within seconds, in one list with the
# Debian command for each, instead of as a failing test minutes later. The
# README's "Set up" names the same list.
missing=()
need() { # executable, then what installs it on Debian
	command -v "$1" >/dev/null 2>&1 || missing+=("$1: $2")
}
need go "Go 1.26 from https://go.dev/dl/ (Debian bookworm's golang-go is too old), then put its bin on PATH"
need git "apt-get install git"
need gcc "apt-get install gcc"
need make "apt-get install make"
need python3 "apt-get install python3"
need node "apt-get install nodejs"
need npm "apt-get install npm"
need java "apt-get install default-jdk-headless"
need javac "apt-get install default-jdk-headless"
need cargo "apt-get install cargo"
need rustc "apt-get install rustc"
need rustfmt "apt-get install rustfmt"
need cargo-clippy "apt-get install rust-clippy"
need dotnet "apt-get install dotnet-sdk-10.0 (after adding Microsoft's package feed: https://learn.microsoft.com/dotnet/core/install/linux-debian)"
# clangd comes from Debian's packages unless the system has clangd 14.
if ! command -v clangd-14 >/dev/null 2>&1; then
	need apt-get "a Debian bookworm machine (clangd 14 is unpacked from its packages)"
	need dpkg-deb "apt-get install dpkg"
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-tools: the test suite needs these, which are not on PATH:" >&2
	printf '  %s\n' "${missing[@]}" >&2
	exit 1
fi

mkdir -p "$tools/bin" "$tools/npm"

GOPLS_VERSION=v0.23.0
STATICCHECK_VERSION=v0.8.2
PYRIGHT_VERSION=1.1.414
TYPESCRIPT_VERSION=5.9.3
TSLS_VERSION=5.1.3
PRETTIER_VERSION=3.10.1
ESLINT_VERSION=10.15.0

go_install() { # name module version
	local stamp="$tools/bin/.$1-$3"
	if [ -x "$tools/bin/$1" ] && [ -f "$stamp" ]; then return; fi
	echo "install-tools: $2@$3" >&2
	GOBIN="$tools/bin" GOFLAGS=-mod=mod go install "$2@$3"
	rm -f "$tools/bin/.$1-"*
	touch "$stamp"
}

go_install gopls golang.org/x/tools/gopls "$GOPLS_VERSION"
go_install staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"

npm_want="pyright@$PYRIGHT_VERSION typescript@$TYPESCRIPT_VERSION typescript-language-server@$TSLS_VERSION prettier@$PRETTIER_VERSION eslint@$ESLINT_VERSION"
if [ "$(cat "$tools/npm/.installed" 2>/dev/null)" != "$npm_want" ]; then
	echo "install-tools: npm $npm_want" >&2
	# shellcheck disable=SC2086
	# No --silent: a registry or network error must be seen, not just
	# npm's exit status.
	if ! npm install --no-audit --no-fund --loglevel=error --prefix "$tools/npm" $npm_want >&2; then
		echo "install-tools: npm install failed (its error is above): $npm_want" >&2
		exit 1
	fi
	echo "$npm_want" >"$tools/npm/.installed"
fi

for bin in pyright pyright-langserver tsc typescript-language-server prettier eslint; do
	ln -sf "$tools/npm/node_modules/.bin/$bin" "$tools/bin/$bin"
done

# csharp-ls, the Roslyn-based C# language server, pinned, as a dotnet tool
# in .tools/csharp-ls (the .NET SDK was checked above).
CSHARP_LS_VERSION=0.28.0
if command -v dotnet >/dev/null; then
	csharp_ls_dir="$tools/csharp-ls"
	if [ "$(cat "$csharp_ls_dir/.installed" 2>/dev/null)" != "$CSHARP_LS_VERSION" ] || [ ! -x "$csharp_ls_dir/csharp-ls" ]; then
		echo "install-tools: csharp-ls $CSHARP_LS_VERSION" >&2
		rm -rf "$csharp_ls_dir"
		DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 \
			dotnet tool install --tool-path "$csharp_ls_dir" csharp-ls --version "$CSHARP_LS_VERSION" >&2
		echo "$CSHARP_LS_VERSION" >"$csharp_ls_dir/.installed"
	fi
	ln -sf "$csharp_ls_dir/csharp-ls" "$tools/bin/csharp-ls"
fi

# clangd 14 from Debian bookworm, pinned, without a system-wide install:
# the packages are downloaded with apt-get download and unpacked into
# .tools/clangd; .tools/bin/clangd runs it with their libraries. The list is
# clangd-14's dependencies that a bookworm base system lacks (apt-get
# install -s clangd-14 names them); the rest (libc, libstdc++, zlib,
# libxml2, libedit, libffi, libz3, libssl) come from the system, and a
# missing one fails here, by name.
CLANGD_PACKAGES="clangd-14=1:14.0.6-12 libclang-cpp14=1:14.0.6-12 libllvm14=1:14.0.6-12 libclang-common-14-dev=1:14.0.6-12 libprotobuf32=3.21.12-3 libgrpc29=1.51.1-3+b1 libgrpc++1.51=1.51.1-3+b1 libc-ares2=1.18.1-3 libre2-9=20220601+dfsg-1+b1 libabsl20220623=20220623.1-1+deb12u2"
clangd_dir="$tools/clangd"
# A machine that has Debian's clangd 14.0.6 installed already (the .NET
# kind does) uses it as it is: nothing to download.
system_clangd=$(command -v clangd-14 || true)
if [ -n "$system_clangd" ] && "$system_clangd" --version 2>/dev/null | grep -q 'clangd version 14\.0\.6'; then
	if [ "$(readlink "$tools/bin/clangd" 2>/dev/null)" != "$system_clangd" ]; then
		echo "install-tools: clangd: the system's $system_clangd ($("$system_clangd" --version | head -n 1))" >&2
		rm -f "$tools/bin/clangd"
		ln -s "$system_clangd" "$tools/bin/clangd"
	fi
elif [ "$(cat "$clangd_dir/.installed" 2>/dev/null)" != "$CLANGD_PACKAGES" ]; then
	echo "install-tools: clangd ($CLANGD_PACKAGES)" >&2
	for cmd in apt-get dpkg-deb dpkg; do
		if ! command -v "$cmd" >/dev/null; then
			echo "install-tools: clangd comes from Debian's packages and needs $cmd (a Debian bookworm machine)" >&2
			exit 1
		fi
	done
	debs=$(mktemp -d)
	trap 'rm -rf "$debs"' EXIT
	# shellcheck disable=SC2086
	if ! (cd "$debs" && apt-get download -q -o APT::Sandbox::User=root $CLANGD_PACKAGES >&2); then
		echo "install-tools: apt-get download failed: run 'apt-get update' once, and check that these bookworm versions are still current: $CLANGD_PACKAGES" >&2
		exit 1
	fi
	rm -rf "$clangd_dir"
	mkdir -p "$clangd_dir"
	for deb in "$debs"/*.deb; do
		dpkg-deb -x "$deb" "$clangd_dir"
	done
	multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
	rm -f "$tools/bin/clangd" # never write through a link to the system's clangd
	cat >"$tools/bin/clangd" <<WRAPPER
#!/bin/sh
# clangd from Debian bookworm ($CLANGD_PACKAGES), unpacked by scripts/install-tools.sh.
d=\$(cd "\$(dirname "\$(readlink -f "\$0")")/../clangd" && pwd)
LD_LIBRARY_PATH="\$d/usr/lib/$multiarch:\$d/usr/lib/llvm-14/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" exec "\$d/usr/lib/llvm-14/bin/clangd" "\$@"
WRAPPER
	chmod +x "$tools/bin/clangd"
	if ! missing=$(LD_LIBRARY_PATH="$clangd_dir/usr/lib/$multiarch:$clangd_dir/usr/lib/llvm-14/lib" ldd "$clangd_dir/usr/lib/llvm-14/bin/clangd" | grep 'not found'); then
		missing=""
	fi
	if [ -n "$missing" ]; then
		echo "install-tools: clangd needs system libraries this machine lacks:" >&2
		echo "$missing" >&2
		exit 1
	fi
	"$tools/bin/clangd" --version >&2
	echo "$CLANGD_PACKAGES" >"$clangd_dir/.installed"
fi

