#!/usr/bin/env bash
# Installs the third-party binlog libraries that BinlogLibrariesIT runs against primaries and relays, idempotently,
# into $BINLOG_RELAY_CACHE/binlog-clients (default ~/.cache/binlog-relay/binlog-clients), each pinned by files of
# src/test/resources/binlog-clients:
#   python/  python-mysql-replication (PyPI mysql-replication) in a venv, from python/requirements.txt;
#   node/    zongji (npm @vlasky/zongji) in node_modules, with npm ci from node/package-lock.json;
#   go/      go-mysql's BinlogSyncer in the program gomysql-events, built from go/ (go.mod, go.sum) with modules
#            from the Go module proxy.
# Each install is redone only when its pinned inputs changed: a stamp file holds the SHA-256 of those inputs (the IT
# computes the same hash and names this script when it differs). Needs python3 (with venv), npm and go on the PATH.
# Called by scripts/provision-test-servers.sh.
set -euo pipefail

log() { printf '[provision-binlog-clients] %s\n' "$*" >&2; }
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SRC="${ROOT}/src/test/resources/binlog-clients"
CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}/binlog-clients"
mkdir -p "$CACHE"

# inputs_hash FILE...: the SHA-256 of the files' contents, concatenated in the order given (as the IT computes it).
inputs_hash() { cat "$@" | sha256sum | cut -d' ' -f1; }

# fresh DIR HASH: true if DIR was installed from inputs with HASH.
fresh() { [ -f "$1/.binlog-relay-inputs" ] && [ "$(cat "$1/.binlog-relay-inputs")" = "$2" ]; }

need() {
  command -v "$1" >/dev/null || { log "$1 is not on the PATH: $2"; exit 1; }
}

python_client() {
  local dir="${CACHE}/python" hash start
  hash=$(inputs_hash "${SRC}/python/requirements.txt")
  if fresh "$dir" "$hash" && "$dir/venv/bin/python" -c 'import pymysqlreplication' 2>/dev/null; then
    log "python-mysql-replication cached in $dir"
    return
  fi
  need python3 "python-mysql-replication needs Python 3 with venv"
  start=$(date +%s)
  rm -rf "$dir"
  mkdir -p "$dir"
  python3 -m venv "$dir/venv"
  "$dir/venv/bin/pip" install --quiet --disable-pip-version-check --no-input -r "${SRC}/python/requirements.txt"
  echo "$hash" >"$dir/.binlog-relay-inputs"
  log "python-mysql-replication installed in $dir in $(( $(date +%s) - start )) s: $("$dir/venv/bin/pip" freeze \
    --disable-pip-version-check | tr '\n' ' ')"
}

node_client() {
  local dir="${CACHE}/node" hash start
  hash=$(inputs_hash "${SRC}/node/package.json" "${SRC}/node/package-lock.json")
  if fresh "$dir" "$hash" && [ -f "$dir/node_modules/@vlasky/zongji/index.js" ]; then
    log "zongji cached in $dir"
    return
  fi
  need npm "zongji is installed with npm"
  need node "zongji runs on Node.js"
  start=$(date +%s)
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "${SRC}/node/package.json" "${SRC}/node/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$hash" >"$dir/.binlog-relay-inputs"
  log "zongji $(node -p "require('$dir/node_modules/@vlasky/zongji/package.json').version") installed in $dir in" \
    "$(( $(date +%s) - start )) s"
}

go_client() {
  local dir="${CACHE}/go" hash start
  hash=$(inputs_hash "${SRC}/go/go.mod" "${SRC}/go/go.sum" "${SRC}/go/main.go")
  if fresh "$dir" "$hash" && [ -x "$dir/gomysql-events" ]; then
    log "go-mysql client cached in $dir"
    return
  fi
  need go "the go-mysql client is built with the Go toolchain"
  start=$(date +%s)
  rm -rf "$dir"
  mkdir -p "$dir"
  # -mod=readonly: go.sum must already pin every module; the module proxy serves them (GOFLAGS may add -buildvcs).
  (cd "${SRC}/go" && go build -mod=readonly -buildvcs=false -trimpath -o "$dir/gomysql-events" .)
  echo "$hash" >"$dir/.binlog-relay-inputs"
  log "go-mysql client built into $dir in $(( $(date +%s) - start )) s ($(go version))"
}

python_client
node_client
go_client
