#!/usr/bin/env bash
# The fault campaign of docs/reliability.md: a real primary under sysbench write load, the relay process following
# it through a fault proxy, and a real replica following the relay through another, while every fault (relay
# SIGKILL/SIGSTOP, primary restart/SIGKILL, cut/stalled/slow/half-open links, a full disk, a replica killed or not
# reading) is injected again and again at random moments; then checks that nothing was lost, duplicated or
# corrupted. The short version (3 minutes per flavour) runs in CI as an ordinary IT; this runs the long one.
#
# Usage: scripts/fault-campaign.sh [--minutes N] [--seed S] [--flavor F] [--rate TPS] [-- MAVEN-ARGS...]
#
#   --minutes N   minutes of faults per flavour (default 60; at most 80). Each flavour takes about N + 3
#                 minutes (servers, sysbench prepare, final checks).
#   --seed S      repeat a campaign: the order of the faults and their particulars (durations, rates,
#                 headroom) come from this seed. Default: random, printed in the log and the report.
#   --flavor F    mysql (MySQL 9.7, the default), mariadb (MariaDB 10.11, then 11.8), mariadb-10.11,
#                 mariadb-11.8, or both (MySQL and both MariaDB series)
#   --rate TPS    sysbench oltp_write_only transactions per second (default 25)
#
# Needs root (tmpfs mount for the relay's data directory, signals to the servers) and the servers of
# scripts/provision-test-servers.sh. Reports: e2e/target/fault-campaign/<flavour>-<series>-<seed>.md (e.g.
# mariadb-11.8-715.md), with the relay's logs next to it in <flavour>-<series>-<seed>/. Exits non-zero if the
# campaign found a problem.
set -euo pipefail
cd "$(dirname "$0")/.."

minutes=60
seed=""
flavor=mysql
rate=""
series=""
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --flavor) flavor="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fault-campaign: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$flavor" in
  mysql) tests='FaultCampaignIT#mysql*' ;;
  mariadb) tests='FaultCampaignIT#mariadb*' ;;
  mariadb-10.11|mariadb-11.8) tests='FaultCampaignIT#mariadb*'; series="${flavor#mariadb-}" ;;
  both) tests='FaultCampaignIT' ;;
  *) echo "fault-campaign: --flavor is mysql, mariadb, mariadb-10.11, mariadb-11.8 or both, not '$flavor'" >&2
     exit 2 ;;
esac

args=(-B -ntp verify -pl e2e -am -Pfault-campaign -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
      -Dservers=local "-Dit.test=$tests" "-Dcampaign.minutes=$minutes")
[ -n "$seed" ] && args+=("-Dcampaign.seed=$seed")
[ -n "$rate" ] && args+=("-Dcampaign.rate=$rate")
[ -n "$series" ] && args+=("-Dbinlogrelay.mariadb.series=$series")
echo "[fault-campaign] mvn ${args[*]} $*" >&2
start=$(date +%s)
status=0
mvn "${args[@]}" "$@" || status=$?
echo "[fault-campaign] finished in $(( $(date +%s) - start )) s with status $status; reports:" >&2
ls -1 e2e/target/fault-campaign/*.md 2>/dev/null >&2 || true
exit "$status"
