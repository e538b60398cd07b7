#!/usr/bin/env bash
# Installs the pinned external tools the test suite needs into ./.tools.
# Idempotent: a tool already at the pinned version is not reinstalled.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tools="$root/.tools"
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
	npm install --silent --no-audit --no-fund --prefix "$tools/npm" $npm_want >&2
	echo "$npm_want" >"$tools/npm/.installed"
fi

for bin in pyright pyright-langserver tsc typescript-language-server prettier eslint; do
	ln -sf "$tools/npm/node_modules/.bin/$bin" "$tools/bin/$bin"
done
