#!/usr/bin/env bash
# Installs everything the tests need on a Debian 12 machine, idempotently:
#   - JDK 17 and Maven (if absent), MariaDB 10.11, sysbench, percona-toolkit, debootstrap from Debian;
#   - MySQL 9.7 (server and clients, mysqlbinlog included) and MariaDB 11.8 (server and clients,
#     mariadb-binlog included) in Debian sid roots made with debootstrap, cached outside the checkout in
#     $BINLOG_RELAY_CACHE (default ~/.cache/binlog-relay/mysql-sid-root and .../mariadb-sid-root) and reused
#     on later runs;
#   - the third-party binlog libraries of BinlogLibrariesIT (python-mysql-replication, zongji, go-mysql), pinned,
#     in $BINLOG_RELAY_CACHE/binlog-clients (scripts/provision-binlog-clients.sh).
# Needs root (apt-get, debootstrap and chroot); uses sudo when not run as root.
set -euo pipefail

log() { printf '[provision] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { log "must run as root or with sudo available"; exit 1; }
  SUDO="sudo"
fi

CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}"
MYSQL_ROOT="${CACHE}/mysql-sid-root"

# --- Debian packages -------------------------------------------------------------------------------
need=()
for pkg in mariadb-server mariadb-client sysbench percona-toolkit debootstrap; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
command -v javac >/dev/null || need+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null || need+=(maven)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  # A third-party source that cannot be reached must not stop us: the Debian lists are what we need.
  $SUDO apt-get update -qq || log "apt-get update reported errors (continuing; Debian's lists are checked by the install)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  log "Debian packages already installed"
fi

# --- MySQL 9.7 from Debian sid, in a debootstrap root -------------------------------------------------
mirror() {
  # The Debian mirror this machine already uses, so the sid root comes from the same place.
  local uri=""
  if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    uri=$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/*.sources | grep -E '/debian/?$' | head -n1 || true)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1=="deb" {for(i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' /etc/apt/sources.list | grep -E '/debian/?$' | head -n1 || true)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# sid_root NAME PACKAGES PROGRAM...: a Debian sid root made with debootstrap in $CACHE/NAME, holding PACKAGES
# (comma-separated), reused while its marker exists and every PROGRAM answers --version inside it.
runs_in() {
  local root="$1" program
  shift
  for program in "$@"; do
    $SUDO chroot "$root" "$program" --version >/dev/null 2>&1 || return 1
  done
}
sid_root() {
  local name="$1" packages="$2"
  shift 2
  local root="${CACHE}/${name}" url
  if [ -f "${root}/.binlog-relay-provisioned" ] && runs_in "$root" "$@"; then
    log "${name} cached at ${root}"
    return
  fi
  url=$(mirror)
  log "building ${name} with debootstrap from $url (about a minute, 650 MB)"
  $SUDO rm -rf "${root}.tmp"
  mkdir -p "$CACHE"
  $SUDO debootstrap --variant=minbase --include="$packages" \
    sid "${root}.tmp" "$url" >"${CACHE}/debootstrap-${name}.log" 2>&1 \
    || { log "debootstrap failed; see ${CACHE}/debootstrap-${name}.log"; tail -n 20 "${CACHE}/debootstrap-${name}.log" >&2; exit 1; }
  runs_in "${root}.tmp" "$@" || { log "${name}: $* did not run in the new root"; exit 1; }
  $SUDO mkdir -p "${root}.tmp/data"
  $SUDO touch "${root}.tmp/.binlog-relay-provisioned"
  $SUDO rm -rf "$root"
  $SUDO mv "${root}.tmp" "$root"
}

# MySQL 9.7 and MariaDB 11.8 (the current LTS) are Debian sid's; each gets its own root. The two builds are
# independent, so they run side by side.
sid_root mysql-sid-root mysql-server-core,mysql-client-core mysqld mysqlbinlog &
mysql_job=$!
sid_root mariadb-sid-root mariadb-server-core,mariadb-client mariadbd mariadb-binlog mariadb &
mariadb_job=$!
wait "$mysql_job"
wait "$mariadb_job"
MARIADB_ROOT="${CACHE}/mariadb-sid-root"

# --- third-party binlog libraries (python-mysql-replication, zongji, go-mysql) ------------------------------------
"$(dirname "$0")/provision-binlog-clients.sh"

log "mariadbd:    $(mariadbd --version)"
log "mysqld:      $($SUDO chroot "$MYSQL_ROOT" mysqld --version)"
log "mysqlbinlog: $($SUDO chroot "$MYSQL_ROOT" mysqlbinlog --version)"
log "mariadbd:    $($SUDO chroot "$MARIADB_ROOT" mariadbd --version) (sid root)"
log "sysbench:    $(sysbench --version)"
log "java:        $(java -version 2>&1 | head -n1)"
