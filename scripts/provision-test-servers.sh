#!/usr/bin/env bash
# Installs everything the tests need on a Debian 12 machine, idempotently:
#   - JDK 17 and Maven (if absent), MariaDB 10.11, sysbench, percona-toolkit, debootstrap from Debian;
#   - MySQL 9.7 (server and clients, mysqlbinlog included) in a Debian sid root made with debootstrap,
#     cached outside the checkout in $BINLOG_RELAY_CACHE (default ~/.cache/binlog-relay/mysql-sid-root)
#     and reused on later runs.
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
MARKER="${MYSQL_ROOT}/.binlog-relay-provisioned"

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

if [ -f "$MARKER" ] && $SUDO chroot "$MYSQL_ROOT" mysqld --version >/dev/null 2>&1; then
  log "MySQL root cached at $MYSQL_ROOT"
else
  url=$(mirror)
  log "building the MySQL root with debootstrap from $url (about a minute, 650 MB)"
  $SUDO rm -rf "${MYSQL_ROOT}.tmp"
  mkdir -p "$CACHE"
  $SUDO debootstrap --variant=minbase --include=mysql-server-core,mysql-client-core \
    sid "${MYSQL_ROOT}.tmp" "$url" >"${CACHE}/debootstrap.log" 2>&1 \
    || { log "debootstrap failed; see ${CACHE}/debootstrap.log"; tail -n 20 "${CACHE}/debootstrap.log" >&2; exit 1; }
  $SUDO chroot "${MYSQL_ROOT}.tmp" mysqld --version >/dev/null
  $SUDO mkdir -p "${MYSQL_ROOT}.tmp/data"
  $SUDO touch "${MYSQL_ROOT}.tmp/.binlog-relay-provisioned"
  $SUDO rm -rf "$MYSQL_ROOT"
  $SUDO mv "${MYSQL_ROOT}.tmp" "$MYSQL_ROOT"
fi

log "mariadbd:    $(mariadbd --version)"
log "mysqld:      $($SUDO chroot "$MYSQL_ROOT" mysqld --version)"
log "mysqlbinlog: $($SUDO chroot "$MYSQL_ROOT" mysqlbinlog --version)"
log "sysbench:    $(sysbench --version)"
log "java:        $(java -version 2>&1 | head -n1)"
