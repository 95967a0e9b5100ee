#!/usr/bin/env bash
# Storage benchmarks of binlog-relay, with the raw figures of the same disk measured in the same run
# (docs/benchmarks.md explains every number and records the last results).
#
# Usage: scripts/bench-storage.sh [--full] [--skip device|jmh|mysql]... [--mysql] [--keep-stores]
#                                 [--no-build] [--dir DIR] [--jmh "NAMES"] [--jmh-args "ARGS"]
#
#   (default)      quick run for a busy or small machine: 1 fork, 2 warm-up and 3 measured iterations of 3 s
#                  (about 10 minutes, plus a few minutes to generate the 10 GiB store the first time)
#   --full         for a quiet machine: 3 forks, 3 warm-ups and 5 measured iterations of 10 s (about 2 hours)
#   --mysql        also measure MySQL 9.7's own binlog write rate with sysbench oltp_write_only at
#                  sync_binlog=1 and 0 (needs root, the MySQL 9.7 chroot of scripts/provision-test-servers.sh
#                  and sysbench; uses 127.0.0.1:3360 and removes its data directory afterwards)
#   --skip PART    leave out the raw device figures, the JMH benchmarks or the MySQL comparison
#   --keep-stores  keep the generated 10 GiB store for the next run (it is deleted by default; the 1 GiB
#                  and 1,000-file stores are kept); it is regenerated when missing
#   --no-build     use the benchmarks jar already built (BENCH_JAR, default /tmp/build-bench/target/...)
#   --dir DIR      where stores and scratch files go (default /var/tmp/binlog-relay-bench); it must be on
#                  the disk to measure, not a tmpfs. Results go to DIR/results/DATE/.
#   --jmh NAMES    only these JMH parts (default all): generator append latency lookup recovery recovery-first
#   --jmh-args     extra arguments for every JMH run, e.g. "-p transactionBytes=2048"
#
# Everything is printed and kept in DIR/results/DATE/: machine.txt, device.txt, *.json (JMH), mysql.txt,
# summary.txt (the tables docs/benchmarks.md shows).
set -euo pipefail

log() { printf '[bench] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR=/var/tmp/binlog-relay-bench
FULL=0
MYSQL=0
KEEP=0
BUILD=1
SKIP=" "
JMH_EXTRA=""
JMH_ONLY=""
BUILD_ROOT=/tmp/build-bench
BENCH_JAR="${BENCH_JAR:-${BUILD_ROOT}/target/binlog-relay-benchmarks/benchmarks.jar}"

while [ $# -gt 0 ]; do
  case "$1" in
    --full) FULL=1 ;;
    --mysql) MYSQL=1 ;;
    --keep-stores) KEEP=1 ;;
    --no-build) BUILD=0 ;;
    --skip) shift; SKIP="${SKIP}$1 " ;;
    --dir) shift; DIR="$1" ;;
    --jmh-args) shift; JMH_EXTRA="$1" ;;
    --jmh) shift; JMH_ONLY=" $1 " ;;
    -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) die "unknown argument $1 (try --help)" ;;
  esac
  shift
done
skipped() { [[ "$SKIP" == *" $1 "* ]]; }

mkdir -p "$DIR"
OUT="$DIR/results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
log "results go to $OUT"

# --- the machine ---------------------------------------------------------------------------------------
machine() {
  echo "date:        $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "kernel:      $(uname -r)"
  echo "cpu:         $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cpus online)"
  echo "memory:      $(free -h | awk '/^Mem:/ {print $2 " total, " $7 " available"}')"
  echo "filesystem:  $(df -hT "$DIR" | awk 'NR==2 {print $1 " " $2 ", " $5 " free, mounted on " $7}')"
  echo "mount:       $(findmnt -no OPTIONS --target "$DIR" 2>/dev/null || echo unknown)"
  echo "java:        $(java -version 2>&1 | head -1)"
  echo "load:        $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min)"
  echo
  free -h
}
machine | tee "$OUT/machine.txt"

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# --- raw device figures ---------------------------------------------------------------------------------
# dd prints e.g. "41943040 bytes (42 MB, 40 MiB) copied, 12.3 s, 3.4 MB/s"; we want the seconds and the rate.
dd_seconds() { sed -n 's/.* copied, \([0-9.]*\) s, .*/\1/p'; }
dd_rate() { sed -n 's/.* s, \(.*\)$/\1/p'; }

device() {
  local f="$DIR/device-scratch" n4k n1m out secs rate
  n4k=$([ "$FULL" = 1 ] && echo 20000 || echo 5000)
  n1m=$([ "$FULL" = 1 ] && echo 4096 || echo 1024)
  echo "load before: $(loadavg)"
  out=$(dd if=/dev/zero of="$f" bs=4k count="$n4k" oflag=dsync 2>&1 | tail -1)
  secs=$(echo "$out" | dd_seconds)
  rate=$(awk -v n="$n4k" -v s="$secs" 'BEGIN {printf "%.0f synchronous 4 KiB writes/s", n / s}')
  echo "dd bs=4k count=$n4k oflag=dsync:   $rate ($(echo "$out" | dd_rate))"
  rm -f "$f"
  out=$(dd if=/dev/zero of="$f" bs=1M count="$n1m" oflag=direct 2>&1 | tail -1)
  echo "dd bs=1M count=$n1m oflag=direct:  $(echo "$out" | dd_rate) sequential (O_DIRECT, no sync)"
  rm -f "$f"
  out=$(dd if=/dev/zero of="$f" bs=1M count="$n1m" conv=fdatasync 2>&1 | tail -1)
  echo "dd bs=1M count=$n1m conv=fdatasync: $(echo "$out" | dd_rate) sequential through the page cache," \
    "one fdatasync at the end"
  rm -f "$f"
  python3 - "$f" "$n4k" <<'PY'
import os, sys, time
path, n = sys.argv[1], int(sys.argv[2])
block = b"\xa5" * 4096

def run(sync, name):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    lat = []
    try:
        for _ in range(n // 2):
            os.write(fd, block)          # append 4 KiB, like a transaction
            t = time.perf_counter_ns()
            sync(fd)
            lat.append((time.perf_counter_ns() - t) / 1000.0)
    finally:
        os.close(fd)
        os.unlink(path)
    lat.sort()
    pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
    print("%-22s n=%d  p50 %.0f us  p90 %.0f us  p99 %.0f us  max %.0f us  (%.0f/s)" % (
        name, len(lat), pick(0.50), pick(0.90), pick(0.99), lat[-1], 1e6 / (sum(lat) / len(lat))))

run(os.fdatasync, "append 4 KiB+fdatasync")
run(os.fsync, "append 4 KiB+fsync")
PY
  echo "load after:  $(loadavg)"
}
if ! skipped device; then
  log "raw device figures in $DIR"
  device | tee "$OUT/device.txt"
fi

# --- JMH ----------------------------------------------------------------------------------------------------
if ! skipped jmh; then
  if [ "$BUILD" = 1 ]; then
    log "building the benchmarks (mvn -o package -pl benchmarks -am)"
    (cd "$REPO" && mvn -B -o -q -DbuildRoot="$BUILD_ROOT" -pl benchmarks -am package -DskipTests) >&2
  fi
  [ -f "$BENCH_JAR" ] || die "no benchmarks jar at $BENCH_JAR (build it, or set BENCH_JAR)"
  JAVA=(java "-Dbinlogrelay.bench.dir=$DIR")

  if [ -z "$JMH_ONLY" ] || [[ "$JMH_ONLY" == *" recovery"* ]] || [[ "$JMH_ONLY" == *" lookup "* ]]; then
    log "generating (or reusing) the stores for recovery and lookup"
    "${JAVA[@]}" -cp "$BENCH_JAR" org.binlogrelay.benchmarks.GeneratedStore all | tee "$OUT/generated.txt"
  fi

  if [ "$FULL" = 1 ]; then
    TIMED=(-f 3 -wi 3 -w 10s -i 5 -r 10s)
    SHOT=(-f 3 -wi 2 -i 10)
  else
    TIMED=(-f 1 -wi 2 -w 3s -i 3 -r 3s)
    SHOT=(-f 1 -wi 2 -i 5)
  fi
  # shellcheck disable=SC2206
  EXTRA=($JMH_EXTRA)
  jmh() {
    local name="$1"; shift
    if [ -n "$JMH_ONLY" ] && [[ "$JMH_ONLY" != *" $name "* ]]; then return 0; fi
    log "JMH $name (load $(loadavg))"
    echo "$name: load before $(loadavg)" >>"$OUT/load.txt"
    "${JAVA[@]}" -jar "$BENCH_JAR" "$@" ${EXTRA[@]+"${EXTRA[@]}"} -rf json -rff "$OUT/$name.json" | tee "$OUT/$name.txt"
    echo "$name: load after  $(loadavg)" >>"$OUT/load.txt"
  }
  jmh generator "SyntheticPrimaryBenchmark" "${TIMED[@]}"
  jmh append "AppendBenchmark" "${TIMED[@]}"
  jmh latency "DurableLatencyBenchmark" "${TIMED[@]}"
  jmh lookup "LookupBenchmark" "${TIMED[@]}"
  jmh recovery "RecoveryBenchmark" "${SHOT[@]}"
  # A relay starts in a fresh JVM, often after a reboot: one cold open per fork, nothing warmed up.
  jmh recovery-first "RecoveryBenchmark" -p cache=cold -f "$([ "$FULL" = 1 ] && echo 10 || echo 3)" -wi 0 -i 1

  if [ "$KEEP" = 0 ]; then
    log "deleting the 10 GiB store (regenerated by the next run; --keep-stores keeps it)"
    "${JAVA[@]}" -cp "$BENCH_JAR" org.binlogrelay.benchmarks.GeneratedStore --delete recovery-10g
  fi
fi

# --- MySQL 9.7 itself -----------------------------------------------------------------------------------
CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}"
MYSQL_ROOT="${CACHE}/mysql-sid-root"
MYSQL_PORT=3360
MYSQL_DATA_IN_ROOT=/data/bench
MYSQL_SOCK_IN_ROOT=/tmp/bench.sock
MYSQL_PID=""

stop_mysql() {
  [ -n "$MYSQL_PID" ] || return 0
  if kill -0 "$MYSQL_PID" 2>/dev/null; then
    chroot "$MYSQL_ROOT" mysqladmin --socket="$MYSQL_SOCK_IN_ROOT" -uroot shutdown >/dev/null 2>&1 \
      || kill -TERM "$MYSQL_PID" 2>/dev/null || true
    for _ in $(seq 1 120); do kill -0 "$MYSQL_PID" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$MYSQL_PID" 2>/dev/null && kill -KILL "$MYSQL_PID" 2>/dev/null || true
  fi
  wait "$MYSQL_PID" 2>/dev/null || true
  MYSQL_PID=""
}
cleanup() {
  local rc=$?
  stop_mysql
  if [ -n "${MYSQL_ROOT:-}" ] && [ -d "${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}" ]; then
    rm -rf "${MYSQL_ROOT:?}${MYSQL_DATA_IN_ROOT}"
  fi
  rm -f "$DIR/device-scratch"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_mysql() {
  local sync="$1"
  chroot "$MYSQL_ROOT" mysqld --user=root --datadir="$MYSQL_DATA_IN_ROOT" --port="$MYSQL_PORT" \
    --bind-address=127.0.0.1 --mysqlx=OFF --secure-file-priv= --server-id=1 --gtid-mode=ON --enforce-gtid-consistency=ON \
    --log-bin=binlog --binlog-checksum=CRC32 --sync-binlog="$sync" --innodb-flush-log-at-trx-commit=1 \
    --max-connections=200 --socket="$MYSQL_SOCK_IN_ROOT" --log-error="${MYSQL_DATA_IN_ROOT}/error.log" &
  MYSQL_PID=$!
  for _ in $(seq 1 120); do
    chroot "$MYSQL_ROOT" mysqladmin --socket="$MYSQL_SOCK_IN_ROOT" -uroot ping >/dev/null 2>&1 && return 0
    kill -0 "$MYSQL_PID" 2>/dev/null || { tail -n 20 "${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}/error.log" >&2; die "mysqld exited"; }
    sleep 0.5
  done
  die "mysqld did not answer in 60 s"
}
my() { chroot "$MYSQL_ROOT" mysql --socket="$MYSQL_SOCK_IN_ROOT" -uroot --batch --skip-column-names "$@"; }
binlog_bytes() { my -e "SHOW BINARY LOGS" | awk '{s += $2} END {print s + 0}'; }

mysql_side() {
  local secs threads=16 sync before after t0 t1 out tps
  secs=$([ "$FULL" = 1 ] && echo 120 || echo 30)
  [ "$(id -u)" = 0 ] || die "--mysql needs root (chroot)"
  [ -x "$MYSQL_ROOT/usr/sbin/mysqld" ] || die "no MySQL 9.7 in $MYSQL_ROOT; run scripts/provision-test-servers.sh"
  command -v sysbench >/dev/null || die "sysbench is not installed (apt-get install sysbench)"
  (exec 3<>"/dev/tcp/127.0.0.1/$MYSQL_PORT") 2>/dev/null && die "port $MYSQL_PORT is in use"
  rm -rf "${MYSQL_ROOT:?}${MYSQL_DATA_IN_ROOT}"
  mkdir -p "$(dirname "${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}")"
  chroot "$MYSQL_ROOT" mysqld --initialize-insecure --user=root --datadir="$MYSQL_DATA_IN_ROOT" \
    --log-error=/tmp/bench-init.err || die "mysqld --initialize-insecure failed"
  echo "$(chroot "$MYSQL_ROOT" mysqld --version)"
  echo "data directory ${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT} on $(df -T "${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}" | awk 'NR==2 {print $1 " " $2}')"
  echo "sysbench oltp_write_only, $threads threads, 4 tables of 100000 rows, $secs s per run, innodb_flush_log_at_trx_commit=1"
  # sysbench (MariaDB Connector/C) goes over TCP; caching_sha2_password full authentication needs a password
  local sb=(sysbench oltp_write_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$MYSQL_PORT"
    --mysql-user=bench --mysql-password=bench-pass --mysql-db=sbtest --tables=4 --table-size=100000)
  for sync in 1 0; do
    start_mysql "$sync"
    if [ "$sync" = 1 ]; then
      my -e "CREATE DATABASE sbtest; CREATE USER bench@'127.0.0.1' IDENTIFIED BY 'bench-pass';
        GRANT ALL ON sbtest.* TO bench@'127.0.0.1'"
      "${sb[@]}" --threads=4 prepare >/dev/null
    fi
    before=$(binlog_bytes)
    t0=$(date +%s.%N)
    out=$("${sb[@]}" --threads="$threads" --time="$secs" --report-interval=0 run)
    t1=$(date +%s.%N)
    after=$(binlog_bytes)
    tps=$(echo "$out" | sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.).*/\1/p')
    awk -v s="$sync" -v b="$before" -v a="$after" -v t0="$t0" -v t1="$t1" -v tps="$tps" -v l="$(loadavg)" 'BEGIN {
      d = a - b; t = t1 - t0
      printf "sync_binlog=%s: %.0f transactions/s, binlog %.1f MB/s (%d bytes in %.1f s, %.0f bytes per transaction), load %s\n",
        s, tps, d / t / 1e6, d, t, (tps > 0 ? d / t / tps : 0), l }'
    stop_mysql
  done
  rm -rf "${MYSQL_ROOT:?}${MYSQL_DATA_IN_ROOT}"
}
if [ "$MYSQL" = 1 ] && ! skipped mysql; then
  log "MySQL 9.7 binlog write rate (sysbench)"
  mysql_side | tee "$OUT/mysql.txt"
fi

# --- summary ----------------------------------------------------------------------------------------------
python3 - "$OUT" <<'PY' | tee "$OUT/summary.txt"
import json, os, sys
out = sys.argv[1]

def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else []

def short(b):
    return b["benchmark"].rsplit(".", 2)[-2]

append = load("append")
if append:
    print("Append throughput (durable within 8 MiB; 'off' = page cache)")
    print("%-24s %8s %14s %10s %12s %14s" % ("policy", "txn size", "transactions/s", "MB/s", "waits/s", "CPU us/txn"))
    for b in append:
        p = b["params"]
        sec = b.get("secondaryMetrics", {})
        mb = sec.get("bytes", {}).get("score", float("nan")) / 1e6
        waits = sec.get("durabilityWaits", {}).get("score", float("nan"))
        score = b["primaryMetric"]["score"]
        cpu = sec.get("cpuNanos", {}).get("score", float("nan")) / score / 1000
        print("%-24s %8s %14.0f %10.1f %12.1f %14.1f" % (p["policy"], p["transactionBytes"], score, mb, waits, cpu))
    print()

gen = load("generator")
if gen:
    print("Generator alone (not the store): transactions/s")
    for b in gen:
        print("  %6s bytes: %.0f" % (b["params"]["transactionBytes"], b["primaryMetric"]["score"]))
    print()

lat = load("latency")
if lat:
    print("Append one transaction and wait until durable (every-transaction), microseconds")
    for b in lat:
        pc = b["primaryMetric"]["scorePercentiles"]
        print("  %6s bytes: mean %.0f  p50 %.0f  p90 %.0f  p99 %.0f  max %.0f" % (b["params"]["transactionBytes"],
              b["primaryMetric"]["score"], pc["50.0"], pc["90.0"], pc["99.0"], pc["100.0"]))
    print()

rec = load("recovery")
if rec:
    print("Open + close (recovery), milliseconds per open")
    print("%-14s %-18s %-6s %10s %10s %10s" % ("store", "tail", "cache", "mean", "min", "max"))
    for b in rec:
        p = b["params"]
        raw = [x for fork in b["primaryMetric"]["rawData"] for x in fork]
        print("%-14s %-18s %-6s %10.1f %10.1f %10.1f" % (p["store"], p["tail"], p["cache"], b["primaryMetric"]["score"], min(raw), max(raw)))
    print()

first = load("recovery-first")
if first:
    print("First open in a fresh JVM, cold cache (one per fork), milliseconds")
    for b in first:
        p = b["params"]
        raw = [x for fork in b["primaryMetric"]["rawData"] for x in fork]
        print("%-14s %-18s %s" % (p["store"], p["tail"], "  ".join("%.0f" % x for x in raw)))
    print()

look = load("lookup")
if look:
    print("MySQL GTID lookup among 1,000 files, microseconds per lookup")
    for b in look:
        print("  replica %-7s %10.1f +- %.1f" % (b["params"]["replica"], b["primaryMetric"]["score"], b["primaryMetric"]["scoreError"]))
PY
log "done; results in $OUT"
