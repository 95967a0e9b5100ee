#!/usr/bin/env bash
# Installs what dist/'s PackagesIT needs besides the Docker engine and the local images, idempotently, on a
# Debian 12 machine: systemd-analyze (Debian package systemd: the tool and systemd's own unit files; it is
# only installed, nothing is started) and dpkg-deb (package dpkg, always there). The fresh Debian root the
# .deb is installed into is the local image binlog-relay-ci/jre:17, which scripts/docker/build-images builds
# (PackagesIT's test of the .deb is tagged docker and runs once the images are there).
# Needs root (apt-get); uses sudo when not run as root. Called by scripts/test-all.
set -euo pipefail

log() { printf '[provision-packaging] %s\n' "$*" >&2; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { log "must run as root or with sudo available"; exit 1; }
  SUDO="sudo"
fi

need=()
command -v systemd-analyze >/dev/null || need+=(systemd)
command -v dpkg-deb >/dev/null || need+=(dpkg)
if [ "${#need[@]}" -gt 0 ]; then
  log "installing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq || log "apt-get update reported errors (continuing; the install checks)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  log "systemd-analyze and dpkg-deb already installed"
fi
