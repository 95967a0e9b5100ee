#!/usr/bin/env bash
# Replication benchmarks of binlog-relay side by side with MySQL 9.7 and MariaDB 10.11 themselves, in one run on
# one machine, everything on 127.0.0.1 (issue 7; docs/benchmarks.md section 8 explains every figure).
#
# Usage: scripts/benchmark-replication.sh [--small] [--backlog SIZE] [OPTIONS]
#
#   --small              validation preset for a small or busy machine: --backlog 150M --max-binlog-size 32M
#                        --buffer-pool 256M --repeat 1 --fanout "10 100" --fanout-seconds 10 --lag-rates "1000 max"
#                        --lag-seconds 20 (options given after --small win)
#   --backlog SIZE       binlog bytes built with sysbench on each primary (default 4G; 500M, 10G ...)
#   --max-binlog-size S  the primaries' max_binlog_size (default 256M)
#   --buffer-pool SIZE   innodb_buffer_pool_size of the primaries and replicas (default 1G)
#   --repeat N           timed runs of each catch-up, warm and cold (default 3; the summary gives the median)
#   --fanout "N..."      fan-out client counts (default "10 100 500")
#   --fanout-seconds S   length of each fan-out run (default 60)
#   --fanout-warmup S    seconds the clients tail, once all are connected and caught up, before each fan-out
#                        measurement starts (default 5; a JVM relay compiles its serving path meanwhile)
#   --fanout-rate R      sysbench trx/s on the primary during fan-out (default 1000)
#   --fanout-readers N   relay-bench fanout --reader-threads: threads with a selector reading the clients (default:
#                        relay-bench's, the processors); 0 gives each client a blocking thread (before 2026-11-29)
#   --lag-rates "R..."   sysbench trx/s for the lag runs; "max" for no rate limit (default "1000 5000 max")
#   --lag-seconds S      length of each lag run (default 60)
#   --relay-sync POLICY  the relay's --sync-binlog (default every-transaction, the relay's default)
#   --synthetic-rates "R..."  optional part: relay-added latency at these trx/s from relay-bench's synthetic primary
#                        (recorded MySQL 9.7 row transactions replayed, no mysqld applying them), with a fresh relay
#                        per rate and per --synthetic-syncs policy (default: not run; e.g. "5000 20000")
#   --synthetic-seconds S measured seconds of each synthetic run (default 30, after a 5 s warm-up)
#   --synthetic-syncs "P..."  the relay's --sync-binlog policies for the synthetic runs (default "every-transaction off")
#   --cold-method M      how the page cache is emptied for cold runs: auto (default: drop-caches if the kernel
#                        lets us, else fadvise), drop-caches (echo 3 > /proc/sys/vm/drop_caches), fadvise
#                        (POSIX_FADV_DONTNEED on the backlog files only, with dd iflag=nocache)
#   --skip PART          leave out a part; repeatable: catchup, cold, mysqlbinlog, fanout, lag, mariadb
#   --out DIR            results go to DIR/DATE/ (default /var/tmp/binlog-relay-replication-bench)
#   --keep               keep the servers' and the relay's data directories (default: deleted at the end)
#   --no-build           use the jars already built (server/target/binlog-relay.jar, bench/target/relay-bench.jar)
#   --perf               profile every measurement with Linux perf, system-wide (all processes, kernel included:
#                        cpu-clock samples at 999 Hz with call graphs); OUT.perf.data next to each report, and a
#                        summary per measurement (CPU by process, and by process and function) in OUT.perf.txt.
#                        The relay runs with -XX:+PreserveFramePointer and writes its JIT symbols at exit
#                        (/tmp/perf-PID.map), so the summaries are made at the end of the run
#
# Environment: RELAY_JAVA_OPTS and BENCH_JAVA_OPTS (JVM options of the relay and of relay-bench, e.g. -Xmx256m),
# RELAY_ARGS (more relay options for the catch-up, fan-out and lag relays, e.g. --serving-shared-batches=off).
#
# Needs root (MySQL 9.7 runs with chroot from the Debian sid root of scripts/provision-test-servers.sh, in
# ${BINLOG_RELAY_CACHE:-~/.cache/binlog-relay}/mysql-sid-root), MariaDB 10.11 and sysbench from Debian, java, curl,
# jq and python3. Disk: about 3 x --backlog in the MySQL root's filesystem (primary, relay, MariaDB).
#
# What runs, in order (servers started here, stopped at the end; Ctrl-C stops everything it started, by pid):
#   MySQL 9.7 primary + relay following it; sysbench prepare and oltp_write_only until the primary has --backlog of
#   binlog; the relay's files are checked byte-identical to the primary's;
#   catchup  one client from binlog.000001:4 to the head, warm page cache: relay vs MySQL's dump thread, and the
#            same files over a plain loopback socket with transferTo (the physical limit); mysqlbinlog --raw
#            against both (is the bench client the bottleneck?)
#   cold     the same after emptying the page cache before each run
#   fanout   N tailing clients against the relay, then against MySQL, while sysbench writes at --fanout-rate
#   lag      two MySQL replicas (one from the primary, one through the relay); per rate, pt-heartbeat lag to each
#   mariadb  MariaDB 10.11 primary + relay, the same backlog, catchup warm and cold (relay vs MariaDB's dump thread),
#            and fanout as above (relay vs MariaDB's dump threads) unless fanout is skipped
#
# Results in DIR/DATE/: machine.txt, settings.txt, runs.jsonl (one line per measurement: what, wall time, CPU time
# of the source and the relay, the relay's RSS and heap), one JSON report per measurement (relay-bench --json),
# the logs, and summary.md (every figure next to its alternative, with the ratio), printed at the end.
set -euo pipefail

log() { printf '[replbench %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BACKLOG=4G
MAX_BINLOG=256M
BUFFER_POOL=1G
REPEAT=3
FANOUT="10 100 500"
FANOUT_SECONDS=60
FANOUT_WARMUP=5
FANOUT_RATE=1000
FANOUT_READERS=
LAG_RATES="1000 5000 max"
LAG_SECONDS=60
RELAY_SYNC=every-transaction
SYNTHETIC_RATES=""
SYNTHETIC_SECONDS=30
SYNTHETIC_SYNCS="every-transaction off"
COLD_METHOD=auto
SKIP=" "
OUT_BASE=/var/tmp/binlog-relay-replication-bench
KEEP=0
BUILD=1
PRESET=full
PERF=0

while [ $# -gt 0 ]; do
  case "$1" in
    --small) PRESET=small; BACKLOG=150M; MAX_BINLOG=32M; BUFFER_POOL=256M; REPEAT=1; FANOUT="10 100"
      FANOUT_SECONDS=10; LAG_RATES="1000 max"; LAG_SECONDS=20 ;;
    --backlog) shift; BACKLOG="${1:?--backlog needs a size}" ;;
    --max-binlog-size) shift; MAX_BINLOG="${1:?}" ;;
    --buffer-pool) shift; BUFFER_POOL="${1:?}" ;;
    --repeat) shift; REPEAT="${1:?}" ;;
    --fanout) shift; FANOUT="${1?}" ;;
    --fanout-seconds) shift; FANOUT_SECONDS="${1:?}" ;;
    --fanout-warmup) shift; FANOUT_WARMUP="${1:?}" ;;
    --fanout-rate) shift; FANOUT_RATE="${1:?}" ;;
    --fanout-readers) shift; FANOUT_READERS="${1:?}" ;;
    --lag-rates) shift; LAG_RATES="${1?}" ;;
    --lag-seconds) shift; LAG_SECONDS="${1:?}" ;;
    --relay-sync) shift; RELAY_SYNC="${1:?}" ;;
    --synthetic-rates) shift; SYNTHETIC_RATES="${1?}" ;;
    --synthetic-seconds) shift; SYNTHETIC_SECONDS="${1:?}" ;;
    --synthetic-syncs) shift; SYNTHETIC_SYNCS="${1:?}" ;;
    --cold-method) shift; COLD_METHOD="${1:?}" ;;
    --skip) shift; SKIP="${SKIP}${1:?} " ;;
    --out) shift; OUT_BASE="${1:?}" ;;
    --keep) KEEP=1 ;;
    --no-build) BUILD=0 ;;
    --perf) PERF=1 ;;
    -h|--help) awk 'NR > 1 && /^#/ {sub(/^# ?/, ""); print; next} NR > 1 {exit}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
  esac
  shift
done
skipped() { [[ "$SKIP" == *" $1 "* ]]; }
bytes_of() { # SIZE (150M, 4G, 1000000) -> bytes
  numfmt --from=iec "$1" 2>/dev/null || die "'$1' is not a size (examples: 150M, 4G)"
}
BACKLOG_BYTES="$(bytes_of "$BACKLOG")"
MAX_BINLOG_BYTES="$(bytes_of "$MAX_BINLOG")"
BUFFER_POOL_BYTES="$(bytes_of "$BUFFER_POOL")"
[ "$MAX_BINLOG_BYTES" -ge 4096 ] && [ "$MAX_BINLOG_BYTES" -le 1073741824 ] \
  || die "--max-binlog-size must be 4K..1G (MySQL's limits), got $MAX_BINLOG"
[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || die "--repeat must be a positive number, got '$REPEAT'"
for n in $FANOUT; do [[ "$n" =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 5000 ] || die "--fanout: '$n' is not 1..5000"; done
for r in $LAG_RATES; do [[ "$r" =~ ^([1-9][0-9]*|max)$ ]] || die "--lag-rates: '$r' is neither a rate nor max"; done
for r in $SYNTHETIC_RATES; do [[ "$r" =~ ^[1-9][0-9]*$ ]] || die "--synthetic-rates: '$r' is not a rate"; done
for v in "$FANOUT_SECONDS" "$FANOUT_RATE" "$LAG_SECONDS" "$SYNTHETIC_SECONDS"; do
  [[ "$v" =~ ^[1-9][0-9]*$ ]] || die "'$v' is not a positive number"
done
[[ "$FANOUT_WARMUP" =~ ^[0-9]+$ ]] || die "--fanout-warmup must be a number of seconds, got '$FANOUT_WARMUP'"
[ -z "$FANOUT_READERS" ] || [[ "$FANOUT_READERS" =~ ^[0-9]+$ ]] || die "--fanout-readers must be a number, got '$FANOUT_READERS'"
case "$COLD_METHOD" in auto|drop-caches|fadvise) ;; *) die "--cold-method: auto, drop-caches or fadvise" ;; esac
for part in $SKIP; do
  case "$part" in catchup|cold|mysqlbinlog|fanout|lag|mariadb) ;; *) die "--skip: unknown part '$part'" ;; esac
done

# --- tools and jars ------------------------------------------------------------------------------------------
[ "$(id -u)" -eq 0 ] || die "run as root: MySQL 9.7 runs with chroot, and cold runs empty the page cache"
CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}"
ROOT="$CACHE/mysql-sid-root"
[ -f "$ROOT/.binlog-relay-provisioned" ] && [ -x "$ROOT/usr/sbin/mysqld" ] \
  || die "no MySQL 9.7 root in $ROOT: run scripts/provision-test-servers.sh first"
for tool in sysbench java curl jq python3 numfmt openssl; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/provision-test-servers.sh installs the servers and sysbench)"
done
if ! skipped mariadb; then
  command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || die "mariadbd is missing (apt-get install mariadb-server)"
fi
MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
PERF_JAVA_OPTS=""
if [ "$PERF" = 1 ]; then
  command -v perf >/dev/null || die "--perf needs perf (apt-get install linux-perf)"
  PERF_JAVA_OPTS="-XX:+UnlockDiagnosticVMOptions -XX:+PreserveFramePointer -XX:+DumpPerfMapAtExit"
fi
RELAY_JAR="$REPO/server/target/binlog-relay.jar"
BENCH_JAR="$REPO/bench/target/relay-bench.jar"
if [ "$BUILD" = 1 ]; then
  log "building the relay and relay-bench (mvn package, tests skipped)"
  (cd "$REPO" && mvn -B -q -DskipTests -pl server,bench -am package >&2)
fi
[ -f "$RELAY_JAR" ] && [ -f "$BENCH_JAR" ] || die "no jars in server/target and bench/target (run without --no-build)"
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
CLK_TCK="$(getconf CLK_TCK)"

# --- results and work directories --------------------------------------------------------------------------------
RES="$OUT_BASE/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$RES"
WORK="$(mktemp -d "$ROOT/data/binlog-relay-replbench.XXXXXX")"   # inside the MySQL root: mysqld sees it as /data/...
RUNS="$RES/runs.jsonl"
: >"$RUNS"
log "results go to $RES; servers and the relay work in $WORK"

# --- processes we start, stopped in reverse order on exit or Ctrl-C, by pid only --------------------------------
PIDS=()
NAMES=()
PERF_FILES=()
remember() { PIDS+=("$1"); NAMES+=("$2"); }
stop_process() { # PID NAME SECONDS: SIGTERM, wait, then SIGKILL
  local pid="$1" name="$2" seconds="$3"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq $((seconds * 10))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  log "$name (pid $pid) did not stop within $seconds s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}
forget() { # PID: stop it and drop it from the list
  local i
  for i in "${!PIDS[@]}"; do
    if [ "${PIDS[$i]}" = "$1" ]; then
      stop_process "${PIDS[$i]}" "${NAMES[$i]}" 60
      unset 'PIDS[i]' 'NAMES[i]'
    fi
  done
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  local i
  for i in $(printf '%s\n' "${!PIDS[@]}" | sort -rn); do   # newest first
    stop_process "${PIDS[$i]}" "${NAMES[$i]}" 60
  done
  if [ "$KEEP" = 1 ]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  [ "$status" -eq 0 ] || log "stopped with status $status; partial results in $RES"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
  local port
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  die "found no free port on 127.0.0.1"
}
random_password() { tr -dc 'A-Za-z0-9' </dev/urandom | head -c 16 || true; }
now_ns() { date +%s%N; }
cpu_ticks() { # PID: user + system clock ticks so far (0 if gone)
  [ -n "$1" ] && [ -r "/proc/$1/stat" ] && sed 's/.*) //' "/proc/$1/stat" | awk '{print $12 + $13}' || echo 0
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# --- machine and settings ---------------------------------------------------------------------------------------
{
  echo "date:        $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "kernel:      $(uname -r)"
  echo "cpu:         $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cpus online)"
  echo "memory:      $(free -h | awk '/^Mem:/ {print $2 " total, " $7 " available"}')"
  echo "filesystem:  $(df -hT "$WORK" | awk 'NR==2 {print $1 " " $2 ", " $5 " free"}')"
  echo "java:        $(java -version 2>&1 | head -1)"
  echo "mysqld:      $(chroot "$ROOT" mysqld --version 2>/dev/null)"
  skipped mariadb || echo "mariadbd:    $("$MARIADBD" --version)"
  echo "sysbench:    $(sysbench --version)"
  echo "load:        $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the start"
} | tee "$RES/machine.txt" >&2
list() { echo "$*" | xargs | tr ' ' ','; }   # "10 100" -> 10,100
cat >"$RES/settings.txt" <<SETTINGS
preset=$PRESET backlog=$BACKLOG_BYTES max_binlog_size=$MAX_BINLOG_BYTES buffer_pool=$BUFFER_POOL_BYTES repeat=$REPEAT
fanout=$(list "$FANOUT") fanout_seconds=$FANOUT_SECONDS fanout_warmup=$FANOUT_WARMUP fanout_rate=$FANOUT_RATE fanout_readers=${FANOUT_READERS:-default} lag_rates=$(list "$LAG_RATES")
lag_seconds=$LAG_SECONDS relay_sync=$RELAY_SYNC cold_method=$COLD_METHOD skip=$(list "$SKIP")
synthetic_rates=$(list "$SYNTHETIC_RATES") synthetic_seconds=$SYNTHETIC_SECONDS synthetic_syncs=$(list "$SYNTHETIC_SYNCS")
SETTINGS

# --- servers: one function per step, flavour as first argument ------------------------------------------------
in_root() { echo "/${1#"$ROOT"/}"; }   # a path as chrooted mysqld sees it

init_datadir() { # FLAVOR DIR
  local flavor="$1" dir="$2"
  mkdir -p "$(dirname "$dir")"
  if [ "$flavor" = mysql ]; then
    chroot "$ROOT" mysqld --no-defaults --initialize-insecure --user=root --datadir="$(in_root "$dir")" \
      --innodb-buffer-pool-size=64M --log-error="$(in_root "$dir").init.log" \
      || { tail -n 20 "$dir.init.log" >&2; die "mysqld --initialize-insecure failed"; }
  else
    mariadb-install-db --no-defaults --user=root --datadir="$dir" --auth-root-authentication-method=normal \
      --skip-test-db >"$dir.init.log" 2>&1 || { tail -n 20 "$dir.init.log" >&2; die "mariadb-install-db failed"; }
  fi
}

# Settings of every server, chosen so that 2 cores reach thousands of transactions per second: no fsync per commit
# (innodb_flush_log_at_trx_commit=2, sync_binlog=0), a buffer pool that holds the tables, performance_schema off.
start_server() { # FLAVOR NAME PORT SERVER_ID: starts NAME from WORK/NAME/data; sets SERVER_PID
  local flavor="$1" name="$2" port="$3" id="$4" d="$WORK/$2" p="$WORK/$2"
  [ "$flavor" = mysql ] && p="$(in_root "$d")"   # chrooted mysqld sees the paths below the root
  local common=(--port="$port" --bind-address=127.0.0.1 --server-id="$id" --skip-name-resolve
    --socket="$p/mysqld.sock" --pid-file="$p/mysqld.pid" --log-error="$p/error.log" --datadir="$p/data"
    --log-bin=binlog --binlog-format=ROW --binlog-checksum=CRC32 --max-binlog-size="$MAX_BINLOG_BYTES"
    --innodb-buffer-pool-size="$BUFFER_POOL_BYTES" --performance-schema=OFF --relay-log=relay
    --max-connections=2300 --open-files-limit=65536 --innodb-flush-log-at-trx-commit=2 --sync-binlog=0)
  if [ "$flavor" = mysql ]; then
    chroot "$ROOT" mysqld --no-defaults --user=root "${common[@]}" --gtid-mode=ON --enforce-gtid-consistency=ON \
      --log-replica-updates=ON --mysqlx=OFF --innodb-redo-log-capacity=1G --skip-replica-start --secure-file-priv= \
      >"$d/console.log" 2>&1 &
  else
    "$MARIADBD" --no-defaults --user=root "${common[@]}" --gtid-strict-mode=ON --log-slave-updates=ON \
      --innodb-log-file-size=512M --skip-slave-start >"$d/console.log" 2>&1 &
  fi
  SERVER_PID=$!
  remember "$SERVER_PID" "$flavor $name"
}

sql() { # FLAVOR NAME [CLIENT ARGS...]: the client on NAME's socket, as root
  local flavor="$1" name="$2"
  shift 2
  if [ "$flavor" = mysql ]; then
    chroot "$ROOT" mysql --no-defaults -uroot --socket="$(in_root "$WORK/$name")/mysqld.sock" "$@"
  else
    mariadb --no-defaults -uroot --socket="$WORK/$name/mysqld.sock" "$@"
  fi
}

await_server() { # FLAVOR NAME PID
  for _ in $(seq 1200); do
    sql "$1" "$2" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    kill -0 "$3" 2>/dev/null || { tail -n 20 "$WORK/$2/error.log" >&2; die "the $1 $2 exited at start (log above)"; }
    sleep 0.1
  done
  tail -n 20 "$WORK/$2/error.log" >&2
  die "the $1 $2 did not answer within 120 s"
}

new_server() { # FLAVOR NAME SERVER_ID: a fresh server from the flavour's template; sets SERVER_PID and SERVER_PORT
  local flavor="$1" name="$2"
  [ -d "$WORK/template-$flavor" ] || init_datadir "$flavor" "$WORK/template-$flavor"
  mkdir -p "$WORK/$name"
  cp -a "$WORK/template-$flavor" "$WORK/$name/data"
  rm -f "$WORK/$name/data/auto.cnf"
  SERVER_PORT="$(free_port)"
  start_server "$flavor" "$name" "$SERVER_PORT" "$3"
  await_server "$flavor" "$name" "$SERVER_PID"
  log "$flavor $name $(sql "$flavor" "$name" -N -e 'SELECT VERSION()') on 127.0.0.1:$SERVER_PORT (pid $SERVER_PID)"
}

REPL_PASSWORD="$(random_password)"
BENCH_PASSWORD="$(random_password)"
create_users() { # FLAVOR NAME: repl (replication) and bench (everything: sysbench, lag), not binlogged
  local identified="IDENTIFIED BY"
  [ "$1" = mysql ] && identified="IDENTIFIED WITH caching_sha2_password BY"
  sql "$1" "$2" <<SQL
SET sql_log_bin = 0;
CREATE USER 'repl'@'%' $identified '$REPL_PASSWORD';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
CREATE USER 'bench'@'%' $identified '$BENCH_PASSWORD';
GRANT ALL ON *.* TO 'bench'@'%';
SET sql_log_bin = 1;
SQL
}

head_of() { # FLAVOR NAME -> FILE:POS
  local statement="SHOW BINARY LOG STATUS"
  [ "$1" = mysql ] || statement="SHOW MASTER STATUS"
  sql "$1" "$2" -N -e "$statement" | awk 'NR == 1 {print $1 ":" $2}'
}
binlog_bytes() { # FLAVOR NAME -> sum of SHOW BINARY LOGS sizes
  sql "$1" "$2" -N -e 'SHOW BINARY LOGS' | awk '{s += $2} END {printf "%.0f\n", s}'
}
binlog_files() { # FLAVOR NAME -> the binlog file names, oldest first
  sql "$1" "$2" -N -e 'SHOW BINARY LOGS' | awk '{print $1}'
}

# --- the relay ----------------------------------------------------------------------------------------------------
start_relay() { # FLAVOR PRIMARY_PORT: sets RELAY_PID RELAY_PORT ADMIN_PORT RELAY_DIR
  local flavor="$1" plugin=caching_sha2_password hash
  [ "$flavor" = mysql ] || plugin=mysql_native_password
  RELAY_DIR="$WORK/relay-$flavor"
  mkdir -p "$RELAY_DIR"
  hash="$(printf '%s' "$REPL_PASSWORD" | java -cp "$RELAY_JAR" org.binlogrelay.protocol.auth.PasswordHashes \
    | awk -v p="$plugin" '$1 == p {print $2}')"
  [ -n "$hash" ] || die "could not make a password hash with $RELAY_JAR"
  printf 'repl@%%  REPLICATION_SLAVE,REPLICATION_CLIENT  %s\n' "$hash" >"$RELAY_DIR/accounts"
  if [ ! -f "$WORK/relay-cert.pem" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=binlog-relay-bench' \
      -keyout "$WORK/relay-key.pem" -out "$WORK/relay-cert.pem" >"$WORK/openssl.log" 2>&1 || die "openssl failed"
  fi
  RELAY_PORT="$(free_port)"
  ADMIN_PORT="$(free_port)"
  BINLOG_RELAY_PRIMARY_PASSWORD="$REPL_PASSWORD" java ${RELAY_JAVA_OPTS:-} ${PERF_JAVA_OPTS:-} -jar "$RELAY_JAR" \
    --source "$flavor://repl@127.0.0.1:$2" --server-id 100 --report-host 127.0.0.1 \
    --data-dir "$RELAY_DIR/data" --accounts-file "$RELAY_DIR/accounts" --sync-binlog "$RELAY_SYNC" \
    --ssl-cert "$WORK/relay-cert.pem" --ssl-key "$WORK/relay-key.pem" --port "$RELAY_PORT" \
    --admin-port "$ADMIN_PORT" --max-connections 2300 ${RELAY_ARGS:-} >"$RES/relay-$flavor.log" 2>&1 &
  RELAY_PID=$!
  remember "$RELAY_PID" "relay ($flavor)"
  for _ in $(seq 600); do
    curl -sf "http://127.0.0.1:$ADMIN_PORT/ready" >/dev/null 2>&1 && break
    kill -0 "$RELAY_PID" 2>/dev/null || { tail -n 20 "$RES/relay-$flavor.log" >&2; die "the relay exited at start"; }
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$ADMIN_PORT/ready" >/dev/null || die "the relay was not ready within 60 s"
  log "relay on 127.0.0.1:$RELAY_PORT, admin on $ADMIN_PORT (pid $RELAY_PID), following $flavor on $2"
}

relay_heap() { # bytes of heap in use, from the relay's /metrics (jvm_memory_used_bytes, area heap)
  # that family only: a whole scrape every 0.5 s with 500 replicas' series cost the relay ~10 % of a core
  curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics?name%5B%5D=jvm_memory_used_bytes" 2>/dev/null \
    | awk '/^jvm_memory_used_bytes\{/ && /area="heap"/ {s += $NF} END {printf "%.0f\n", s}'
}

await_relay_has() { # FLAVOR PRIMARY_DATADIR FILES...: wait until the relay stores every file as long as the primary's
  local flavor="$1" primary_dir="$2"
  shift 2
  local f ok
  for _ in $(seq 3600); do
    ok=1
    for f in "$@"; do
      [ "$(stat -c %s "$RELAY_DIR/data/$f" 2>/dev/null || echo -1)" = "$(stat -c %s "$primary_dir/$f")" ] || { ok=0; break; }
    done
    [ "$ok" = 1 ] && return 0
    kill -0 "$RELAY_PID" 2>/dev/null || die "the relay exited (see $RES/relay-$flavor.log)"
    sleep 0.5
  done
  die "the relay did not store the backlog within 30 min (see $RES/relay-$flavor.log)"
}

# --- measurements: every one goes through measure, which records a line of runs.jsonl --------------------------
SAMPLER_PID=""
start_sampler() { # FILE: the relay's RSS every 0.5 s and its heap every second while the measurement runs
  local file="$1" pid="$RELAY_PID"
  ( heap="$(relay_heap)"
    while kill -0 "$pid" 2>/dev/null; do
      printf '%s %s %s\n' "$(date +%s%3N)" "$(rss_kb "$pid")" "$heap"
      sleep 0.5
      printf '%s %s %s\n' "$(date +%s%3N)" "$(rss_kb "$pid")" 0
      sleep 0.5
      heap="$(relay_heap)"
    done ) >"$file" 2>/dev/null &
  SAMPLER_PID=$!
  remember "$SAMPLER_PID" "sampler"
}
stop_sampler() { forget "$SAMPLER_PID"; SAMPLER_PID=""; }

# measure PART FLAVOR SOURCE LABEL SOURCE_PID OUT -- COMMAND...: runs COMMAND (stdout to OUT), with the relay's
# and the source's CPU time before and after and the relay's RSS and heap sampled meanwhile.
measure() {
  local part="$1" flavor="$2" source="$3" label="$4" spid="$5" out="$6"
  shift 7
  local s0 r0 t0 t1 s1 r1 samples="$out.samples" status=0
  start_sampler "$samples"
  local perf_pid=""
  if [ "$PERF" = 1 ]; then
    perf record -q -a -g -e cpu-clock -F 999 -o "$out.perf.data" -- sleep 100000 >/dev/null 2>"$out.perf.err" &
    perf_pid=$!
    remember "$perf_pid" "perf record"
    sleep 1
  fi
  s0="$(cpu_ticks "$spid")"; r0="$(cpu_ticks "$RELAY_PID")"; t0="$(now_ns)"
  "$@" >"$out" 2>"$out.err" || status=$?
  t1="$(now_ns)"; s1="$(cpu_ticks "$spid")"; r1="$(cpu_ticks "$RELAY_PID")"
  if [ -n "$perf_pid" ]; then
    pkill -INT -P "$perf_pid" sleep 2>/dev/null || true   # perf stops with its workload and writes its file
    wait "$perf_pid" 2>/dev/null || true
    forget "$perf_pid"
    PERF_FILES+=("$out")
  fi
  stop_sampler
  local rss heap
  rss="$(awk 'BEGIN {m = 0} $2 > m {m = $2} END {print m}' "$samples")"
  heap="$(awk 'BEGIN {m = 0} $3 > m {m = $3} END {printf "%.0f", m}' "$samples")"
  jq -cn --arg part "$part" --arg flavor "$flavor" --arg source "$source" --arg lbl "$label" \
    --arg file "${out#"$RES"/}" --argjson status "$status" --argjson wall "$(( (t1 - t0) / 1000000 ))" \
    --argjson scpu "$([ -n "$spid" ] && echo $(( (s1 - s0) * 1000 / CLK_TCK )) || echo null)" --argjson rcpu "$(( (r1 - r0) * 1000 / CLK_TCK ))" \
    --argjson rss "${rss:-0}" --argjson heap "${heap:-0}" --arg load "$(cut -d' ' -f1 /proc/loadavg)" \
    '{part: $part, flavor: $flavor, source: $source, "label": $lbl, file: $file, status: $status,
      wall_ms: $wall, source_cpu_ms: $scpu, relay_cpu_ms: $rcpu, relay_rss_max_kb: $rss,
      relay_heap_max_bytes: $heap, load1: $load}' >>"$RUNS"
  if [ "$status" -ne 0 ]; then
    log "$part $source $label FAILED (status $status): $(tail -n 3 "$out.err" | tr '\n' ' ')"
  else
    log "$part $source $label: $(jq -r '.figures | to_entries | map(select(.key | test("^(mb_per_s|seconds|lag_p50_ms|lag_p99_ms)$")))
      | map("\(.key) \(.value)") | join(", ")' "$out" 2>/dev/null || echo "done")"
  fi
}

bench() { java ${BENCH_JAVA_OPTS:-} ${PERF_JAVA_OPTS:-} -jar "$BENCH_JAR" "$@"; }

# mysqlbinlog --read-from-remote-server --raw of FILES from PORT into a scratch directory of the MySQL root;
# prints a report in relay-bench's JSON shape (process start and file writes are in its time).
remote_raw_copy() { # FLAVOR PORT FIRST_FILE BYTES
  local flavor="$1" port="$2" first="$3" bytes="$4" dir t0 t1 copied
  dir="$(mktemp -d "$WORK/rawcopy.XXXXXX")"
  t0="$(now_ns)"
  if [ "$flavor" = mysql ]; then
    chroot "$ROOT" mysqlbinlog --no-defaults --protocol=TCP --host=127.0.0.1 --port="$port" --user=repl \
      --password="$REPL_PASSWORD" --ssl-mode=DISABLED --get-server-public-key --read-from-remote-server --raw \
      --to-last-log --result-file="$(in_root "$dir")/" "$first" >&2 || { rm -rf "$dir"; return 1; }
  else
    mariadb-binlog --no-defaults --protocol=TCP --host=127.0.0.1 --port="$port" --user=repl \
      --password="$REPL_PASSWORD" --read-from-remote-server --raw --to-last-log --result-file="$dir/" "$first" >&2 \
      || { rm -rf "$dir"; return 1; }
  fi
  t1="$(now_ns)"
  copied="$(du -cb "$dir"/* | awk 'END {print $1}')" || { rm -rf "$dir"; return 1; }
  rm -rf "$dir"
  jq -cn --argjson s "$(( (t1 - t0) / 1000 ))" --argjson b "$copied" --argjson expected "$bytes" \
    '{benchmark: "mysqlbinlog", title: "mysqlbinlog --read-from-remote-server --raw --to-last-log",
      figures: {seconds: ($s / 1e6), event_bytes: $b, expected_bytes: $expected, mb_per_s: ($b / $s)},
      notes: ["process start, login and writing the files are included in the time"]}'
}

COLD_USED=""
empty_page_cache() { # FILES...: before a cold run
  sync
  if [ "$COLD_METHOD" != fadvise ] && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
    COLD_USED="drop-caches"
    return 0
  fi
  if [ "$COLD_METHOD" = drop-caches ]; then
    die "echo 3 > /proc/sys/vm/drop_caches is not permitted here (try --cold-method fadvise)"
  fi
  local f
  for f in "$@"; do dd if="$f" iflag=nocache count=0 status=none; done
  COLD_USED="fadvise"
}
resident_bytes() { # FILES...: bytes of them in the page cache (fincore), or "unknown"
  command -v fincore >/dev/null || { echo unknown; return; }
  fincore -b -n -o RES "$@" 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'
}

# --- building a backlog with sysbench ----------------------------------------------------------------------------
SB_TABLES=8
sysbench_args() { # FLAVOR PORT DB
  echo "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port=$2 --mysql-user=bench --mysql-password=$BENCH_PASSWORD"
  echo "--mysql-db=$3"
}
build_backlog() { # FLAVOR NAME PORT: sysbench prepare, then oltp_write_only until BACKLOG_BYTES; then FLUSH
  local flavor="$1" name="$2" port="$3" rows pid size
  # About a tenth of the backlog comes from prepare (~250 bytes of binlog per row), the rest from transactions.
  rows=$(( BACKLOG_BYTES / 10 / 250 / SB_TABLES ))
  [ "$rows" -ge 1000 ] || rows=1000
  [ "$rows" -le 2000000 ] || rows=2000000
  sql "$flavor" "$name" -e 'CREATE DATABASE sbtest'
  log "$flavor backlog: sysbench prepare, $SB_TABLES tables x $rows rows"
  # shellcheck disable=SC2046
  sysbench oltp_write_only $(sysbench_args "$flavor" "$port" sbtest) --tables="$SB_TABLES" --table-size="$rows" \
    --threads=4 prepare >"$RES/sysbench-backlog-$flavor.log" 2>&1 || { tail "$RES/sysbench-backlog-$flavor.log" >&2; die "sysbench prepare failed"; }
  log "$flavor backlog: sysbench oltp_write_only (4 threads, no rate limit) until $BACKLOG binlog"
  # shellcheck disable=SC2046
  sysbench oltp_write_only $(sysbench_args "$flavor" "$port" sbtest) --tables="$SB_TABLES" --table-size="$rows" \
    --threads=4 --time=7200 --report-interval=10 run >>"$RES/sysbench-backlog-$flavor.log" 2>&1 &
  pid=$!
  remember "$pid" "sysbench (backlog)"
  local t0=$SECONDS
  while :; do
    size="$(binlog_bytes "$flavor" "$name")"
    [ "$size" -ge "$BACKLOG_BYTES" ] && break
    kill -0 "$pid" 2>/dev/null || { tail "$RES/sysbench-backlog-$flavor.log" >&2; die "sysbench stopped early"; }
    [ $((SECONDS - t0)) -lt 7200 ] || die "the backlog did not reach $BACKLOG within 2 h"
    sleep 1
  done
  forget "$pid"
  sql "$flavor" "$name" -e 'FLUSH BINARY LOGS'
  log "$flavor backlog: $(binlog_bytes "$flavor" "$name") bytes in $(binlog_files "$flavor" "$name" | wc -l) files ($((SECONDS - t0)) s of writes)"
}

# --- catch-up: warm and cold, relay vs the server's dump thread vs the loopback limit ------------------------------
catchup_part() { # FLAVOR PRIMARY_NAME PRIMARY_PORT PRIMARY_PID
  local flavor="$1" name="$2" port="$3" ppid="$4" dir="$WORK/$2/data" head first files=() f bytes rep
  head="$(head_of "$flavor" "$name")"
  mapfile -t names < <(binlog_files "$flavor" "$name")
  first="${names[0]}"
  for f in "${names[@]}"; do files+=("$dir/$f"); done
  await_relay_has "$flavor" "$dir" "${names[@]}"
  # The stored files must be the primary's bytes: every closed file compared whole.
  local identical=yes
  for f in "${names[@]:0:${#names[@]}-1}"; do
    cmp -s "$dir/$f" "$RELAY_DIR/data/$f" || { identical="NO ($f differs)"; log "relay's $f differs from the primary's"; }
  done
  bytes="$(du -cb "${files[@]}" | awk 'END {print $1}')"
  jq -cn --arg flavor "$flavor" --arg head "$head" --argjson bytes "$bytes" --argjson files "${#names[@]}" \
    --arg identical "$identical" '{part: "backlog", flavor: $flavor, head: $head, bytes: $bytes, files: $files,
    relay_files_identical: $identical}' >>"$RUNS"
  log "$flavor: $bytes bytes in ${#names[@]} files up to $head; relay's files byte-identical: $identical"
  local relay_files=()
  for f in "${names[@]}"; do relay_files+=("$RELAY_DIR/data/$f"); done
  local common=(catchup --json --host 127.0.0.1 -u repl -p "$REPL_PASSWORD" --from "$first:4" --until "$head")
  local mode
  for mode in warm cold; do
    if [ "$mode" = warm ] && skipped catchup; then continue; fi
    if [ "$mode" = cold ] && skipped cold; then continue; fi
    if [ "$mode" = warm ]; then   # read every file once, and one untimed catch-up from each source
      cat "${files[@]}" "${relay_files[@]}" >/dev/null
      bench "${common[@]}" --port "$RELAY_PORT" >/dev/null
      bench "${common[@]}" --port "$port" >/dev/null
    fi
    # warm: each client JVM first runs the same catch-up untimed (--warmup 1), so that the timed run is not the
    # client's JIT warm-up; the source's CPU is then taken by relay-bench over the timed run alone (--source-pid)
    local timed=("${common[@]}")
    [ "$mode" = warm ] && timed+=(--warmup 1)
    for rep in $(seq "$REPEAT"); do
      cold_start "$mode" "${relay_files[@]}"
      measure "catchup-$mode" "$flavor" relay "$rep" "$RELAY_PID" "$RES/$flavor-catchup-$mode-relay-$rep.json" -- \
        bench "${timed[@]}" --port "$RELAY_PORT" --source-pid "$RELAY_PID"
      cold_start "$mode" "${files[@]}"
      measure "catchup-$mode" "$flavor" "$flavor" "$rep" "$ppid" "$RES/$flavor-catchup-$mode-$flavor-$rep.json" -- \
        bench "${timed[@]}" --port "$port" --source-pid "$ppid"
      cold_start "$mode" "${files[@]}"
      measure "catchup-$mode" "$flavor" loopback "$rep" "" "$RES/$flavor-catchup-$mode-loopback-$rep.json" -- \
        bench loopback --json "${files[@]}"
      if ! skipped mysqlbinlog; then
        cold_start "$mode" "${files[@]}"
        measure "catchup-$mode" "$flavor" "mysqlbinlog-$flavor" "$rep" "$ppid" \
          "$RES/$flavor-catchup-$mode-mysqlbinlog-$flavor-$rep.json" -- remote_raw_copy "$flavor" "$port" "$first" "$bytes"
        cold_start "$mode" "${relay_files[@]}"
        measure "catchup-$mode" "$flavor" mysqlbinlog-relay "$rep" "$RELAY_PID" \
          "$RES/$flavor-catchup-$mode-mysqlbinlog-relay-$rep.json" -- remote_raw_copy "$flavor" "$RELAY_PORT" "$first" "$bytes"
      fi
    done
    if [ "$mode" = cold ]; then
      jq -cn --arg m "$COLD_USED" '{part: "cold-method", method: $m}' >>"$RUNS"
    fi
  done
}
cold_start() { # MODE FILES...: for a cold run, empty the page cache (and say how much of FILES stayed resident)
  local mode="$1"
  shift
  [ "$mode" = cold ] || return 0
  empty_page_cache "$@"
  log "cold: page cache emptied ($COLD_USED); the source's files still resident: $(resident_bytes "$@") bytes"
}

# --- fan-out: N tailing clients, relay vs the primary itself, under sysbench writes --------------------------------
fanout_part() { # FLAVOR PRIMARY_NAME PRIMARY_PORT PRIMARY_PID: the relay following PRIMARY_NAME must be running
  local flavor="$1" name="$2" port="$3" ppid="$4" n pid
  sql "$flavor" "$name" -e 'CREATE DATABASE IF NOT EXISTS sbfan'
  # shellcheck disable=SC2046
  sysbench oltp_write_only $(sysbench_args "$flavor" "$port" sbfan) --tables=4 --table-size=10000 prepare \
    >"$RES/sysbench-fanout-$flavor.log" 2>&1 || die "sysbench prepare (fan-out, $flavor) failed"
  # shellcheck disable=SC2046
  sysbench oltp_write_only $(sysbench_args "$flavor" "$port" sbfan) --tables=4 --table-size=10000 --threads=4 \
    --rate="$FANOUT_RATE" --time=86400 --report-interval=5 run >>"$RES/sysbench-fanout-$flavor.log" 2>&1 &
  pid=$!
  remember "$pid" "sysbench (fan-out, $flavor)"
  sleep 3
  # the source is "relay" or the flavour's own name (mysql, mariadb), as in the other parts
  local source source_port source_pid b0 b1 t0 t1
  for n in $FANOUT; do
    for source in relay "$flavor"; do
      source_port="$port"; source_pid="$ppid"
      if [ "$source" = relay ]; then source_port="$RELAY_PORT"; source_pid="$RELAY_PID"; fi
      b0="$(binlog_bytes "$flavor" "$name")"; t0="$(now_ns)"
      measure fanout "$flavor" "$source" "$n" "$source_pid" "$RES/$flavor-fanout-$source-$n.json" -- \
        bench fanout --json --host 127.0.0.1 --port "$source_port" -u repl -p "$REPL_PASSWORD" --replicas "$n" \
        --duration "$FANOUT_SECONDS" --warmup "$FANOUT_WARMUP" --source-pid "$source_pid" --plot "$RES/$flavor-fanout-$source-$n.svg" \
        ${FANOUT_READERS:+--reader-threads "$FANOUT_READERS"}
      b1="$(binlog_bytes "$flavor" "$name")"; t1="$(now_ns)"
      # what the primary wrote meanwhile (sysbench's --rate is a target: on a busy machine it lags and bursts)
      jq -cn --arg flavor "$flavor" --arg source "$source" --arg n "$n" --argjson bytes $((b1 - b0)) \
        --argjson ms $(( (t1 - t0) / 1000000 )) \
        '{part: "fanout-load", flavor: $flavor, source: $source, clients: $n, primary_bytes: $bytes, ms: $ms}' >>"$RUNS"
    done
  done
  forget "$pid"
}

# --- lag: primary -> replica vs primary -> relay -> replica, under sysbench at several rates ------------------------
await_caught_up() { # NAME GTIDS SECONDS
  for _ in $(seq $(($3 * 5))); do
    [ "$(sql mysql "$1" -N -e "SELECT GTID_SUBSET('$2', @@gtid_executed)" 2>/dev/null)" = 1 ] && return 0
    sleep 0.2
  done
  return 1
}
primary_executed() { sql mysql primary -N -e 'SELECT REPLACE(@@gtid_executed, "\n", "")'; }

# Two replicas that skip the backlog (gtid_purged = the primary's executed set) and replicate a new schema, sblag,
# by GTID auto-position with TLS (MySQL 9 replicas require TLS from the relay; the direct one uses it too):
# replica-direct from the primary, replica-relay through the relay. Both run during every lag measurement, so the
# machine carries the same load whichever path is measured.
lag_part() { # PRIMARY_PORT PRIMARY_PID
  local port="$1" ppid="$2" executed name id source_port rate path pid replica_port tps
  local -A replica_ports=()
  executed="$(primary_executed)"
  id=2
  for name in replica-direct replica-relay; do
    new_server mysql "$name" "$id"
    id=$((id + 1))
    replica_ports[$name]="$SERVER_PORT"
    source_port="$port"
    [ "$name" = replica-relay ] && source_port="$RELAY_PORT"
    sql mysql "$name" <<SQL
CREATE USER 'bench'@'%' IDENTIFIED WITH caching_sha2_password BY '$BENCH_PASSWORD';
GRANT ALL ON *.* TO 'bench'@'%';
RESET BINARY LOGS AND GTIDS;
SET GLOBAL gtid_purged = '$executed';
CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$source_port, SOURCE_USER='repl',
  SOURCE_PASSWORD='$REPL_PASSWORD', SOURCE_AUTO_POSITION=1, SOURCE_SSL=1, SOURCE_CONNECT_RETRY=1,
  SOURCE_RETRY_COUNT=86400;
START REPLICA;
SQL
  done
  sql mysql primary -e 'CREATE DATABASE sblag'
  # shellcheck disable=SC2046
  sysbench oltp_update_non_index $(sysbench_args mysql "$port" sblag) --tables=4 --table-size=10000 prepare \
    >"$RES/sysbench-lag.log" 2>&1 || die "sysbench prepare (lag) failed"
  executed="$(primary_executed)"
  for name in replica-direct replica-relay; do
    await_caught_up "$name" "$executed" 300 || { sql mysql "$name" -E -e 'SHOW REPLICA STATUS' >&2; die "$name did not catch up"; }
  done
  for rate in $LAG_RATES; do
    for path in direct relay; do
      local sbrate="$rate" threads=4
      [ "$rate" = max ] && { sbrate=0; threads=8; }
      # shellcheck disable=SC2046
      sysbench oltp_update_non_index $(sysbench_args mysql "$port" sblag) --tables=4 --table-size=10000 \
        --threads="$threads" --rate="$sbrate" --time=$((LAG_SECONDS + 15)) --report-interval=1 run \
        >"$RES/mysql-lag-$path-$rate.sysbench.log" 2>&1 &
      pid=$!
      remember "$pid" "sysbench (lag)"
      sleep 3
      replica_port="${replica_ports[replica-$path]}"
      local relay_metrics=()   # through the relay: its own view of the lag too (docs/bench.md, lag)
      [ "$path" = relay ] && relay_metrics=(--relay-metrics "http://127.0.0.1:$ADMIN_PORT/metrics")
      measure lag mysql "$path" "$rate" "$ppid" "$RES/mysql-lag-$path-$rate.json" -- \
        bench lag --json --host 127.0.0.1 --port "$port" -u bench -p "$BENCH_PASSWORD" --replica-port "$replica_port" \
        --duration "$LAG_SECONDS" --plot "$RES/mysql-lag-$path-$rate.svg" "${relay_metrics[@]}"
      forget "$pid"
      # the rate sysbench reached while the lag was measured (its per-second reports from 3 s on)
      tps="$(awk -v from=4 -v to=$((LAG_SECONDS + 3)) '/^\[ *[0-9]+s \]/ {t = $2 + 0; if (t >= from && t <= to) {
        for (i = 1; i <= NF; i++) if ($i == "tps:") {s += $(i + 1); n++}}} END {printf "%.1f", n ? s / n : 0}' \
        "$RES/mysql-lag-$path-$rate.sysbench.log")"
      jq -cn --arg path "$path" --arg rate "$rate" --argjson tps "$tps" \
        '{part: "lag-load", path: $path, rate: $rate, tps: $tps}' >>"$RUNS"
      log "lag $path at rate $rate: sysbench reached $tps trx/s"
      executed="$(primary_executed)"
      for name in replica-direct replica-relay; do
        await_caught_up "$name" "$executed" 600 \
          || { log "$name did not catch up within 10 min after the $rate run"; jq -cn --arg n "$name" --arg r "$rate" \
               '{part: "note", text: ("\($n) did not catch up within 10 min after the lag run at rate \($r)")}' >>"$RUNS"; }
      done
    done
  done
  for name in replica-relay replica-direct; do
    forget "$(cat "$WORK/$name/mysqld.pid")"
  done
}

# --- synthetic: relay-added latency at a controlled rate, relay-bench's synthetic primary instead of mysqld ---------
synthetic_wait() { # BENCH_PID REPORT: waits for relay-bench synthetic (started in the background) and prints its report
  local status=0
  wait "$1" || status=$?
  cat "$2"
  return "$status"
}

synthetic_part() { # [RECORDED_BINLOG]: per policy and rate, a fresh relay following a fresh synthetic primary
  local recording=() sync rate port rport aport dir out bpid hash
  if [ -n "${1:-}" ]; then
    cp "$1" "$WORK/synthetic-recording.binlog"
    recording=(--binlog "$WORK/synthetic-recording.binlog" --binlog-transactions 100000)
    log "synthetic: replaying the row transactions of $(basename "$1") (a sysbench binlog of the MySQL primary)"
  fi
  hash="$(printf '%s' "$REPL_PASSWORD" | java -cp "$RELAY_JAR" org.binlogrelay.protocol.auth.PasswordHashes \
    | awk '$1 == "mysql_native_password" {print $2}')"
  for sync in $SYNTHETIC_SYNCS; do
    for rate in $SYNTHETIC_RATES; do
      dir="$WORK/relay-synthetic"
      rm -rf "$dir"
      mkdir -p "$dir"
      printf 'repl@%%  REPLICATION_SLAVE,REPLICATION_CLIENT  %s\n' "$hash" >"$dir/accounts"
      port="$(free_port)"; rport="$(free_port)"; aport="$(free_port)"
      ADMIN_PORT="$aport"   # the sampler reads this relay's heap
      out="$RES/mysql-synthetic-relay-$sync-$rate.json"
      RELAY_BENCH_PASSWORD="$REPL_PASSWORD" RELAY_BENCH_PRIMARY_PASSWORD="$REPL_PASSWORD" bench synthetic --json \
        --primary-port "$port" --port "$rport" --user repl --rate "$rate" --duration "$SYNTHETIC_SECONDS" \
        --warmup 5 --setup-timeout 120 --relay-pid-file "$dir/relay.pid" \
        --relay-metrics "http://127.0.0.1:$aport/metrics" --label "relay --sync-binlog $sync" "${recording[@]}" \
        >"$out.tmp" 2>"$out.bench.err" &
      bpid=$!
      remember "$bpid" "relay-bench synthetic"
      for _ in $(seq 600); do
        grep -q 'listening on' "$out.bench.err" 2>/dev/null && break
        kill -0 "$bpid" 2>/dev/null || break
        sleep 0.1
      done
      grep -q 'listening on' "$out.bench.err" || { cat "$out.bench.err" >&2; die "relay-bench synthetic did not start"; }
      BINLOG_RELAY_PRIMARY_PASSWORD="$REPL_PASSWORD" java ${RELAY_JAVA_OPTS:-} ${PERF_JAVA_OPTS:-} -jar "$RELAY_JAR" \
        --source "mysql://repl@127.0.0.1:$port" --server-id 100 --data-dir "$dir/data" --accounts-file "$dir/accounts" \
        --sync-binlog "$sync" --port "$rport" --admin-port "$aport" \
        >"$RES/relay-synthetic-$sync-$rate.log" 2>&1 &
      RELAY_PID=$!
      remember "$RELAY_PID" "relay (synthetic $sync $rate)"
      echo "$RELAY_PID" >"$dir/relay.pid"
      for _ in $(seq 600); do   # the sampler of measure reads its /metrics from the start
        curl -sf "http://127.0.0.1:$aport/ready" >/dev/null 2>&1 && break
        kill -0 "$RELAY_PID" 2>/dev/null || break
        sleep 0.1
      done
      measure synthetic mysql relay "$sync-$rate" "" "$out" -- synthetic_wait "$bpid" "$out.tmp"
      forget "$bpid"
      forget "$RELAY_PID"
    done
  done
  rm -rf "$WORK/relay-synthetic" "$WORK/synthetic-recording.binlog"
}

# --- main ----------------------------------------------------------------------------------------------------------
log "MySQL 9.7: primary and relay"
new_server mysql primary 1
PRIMARY_PORT="$SERVER_PORT"
PRIMARY_PID="$SERVER_PID"
create_users mysql primary
start_relay mysql "$PRIMARY_PORT"
if ! skipped catchup || ! skipped cold; then
  build_backlog mysql primary "$PRIMARY_PORT"
  catchup_part mysql primary "$PRIMARY_PORT" "$PRIMARY_PID"
fi
skipped fanout || fanout_part mysql primary "$PRIMARY_PORT" "$PRIMARY_PID"
skipped lag || lag_part "$PRIMARY_PORT" "$PRIMARY_PID"
forget "$RELAY_PID"
if [ -n "$SYNTHETIC_RATES" ]; then   # the primary's largest binlog as the recording, if sysbench wrote rows into it
  recorded=""
  if ! skipped catchup || ! skipped cold || ! skipped lag; then
    recorded="$(ls -S "$WORK/primary/data"/binlog.[0-9]* 2>/dev/null | head -n 1 || true)"
  fi
  synthetic_part "$recorded"
fi
forget "$PRIMARY_PID"
[ "$KEEP" = 1 ] || rm -rf "$WORK/primary" "$WORK/relay-mysql" "$WORK/replica-direct" "$WORK/replica-relay"   # disk

if ! skipped mariadb && { ! skipped catchup || ! skipped cold || ! skipped fanout; }; then
  log "MariaDB 10.11: primary and relay"
  new_server mariadb mariadb-primary 11
  PRIMARY_PORT="$SERVER_PORT"
  PRIMARY_PID="$SERVER_PID"
  create_users mariadb mariadb-primary
  start_relay mariadb "$PRIMARY_PORT"
  if ! skipped catchup || ! skipped cold; then
    build_backlog mariadb mariadb-primary "$PRIMARY_PORT"
    catchup_part mariadb mariadb-primary "$PRIMARY_PORT" "$PRIMARY_PID"
  fi
  skipped fanout || fanout_part mariadb mariadb-primary "$PRIMARY_PORT" "$PRIMARY_PID"
  forget "$RELAY_PID"
  forget "$PRIMARY_PID"
fi

echo "load:        $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) at the end" >>"$RES/machine.txt"
if [ "$PERF" = 1 ]; then   # now that the relays have exited and written their JIT symbols
  for out in "${PERF_FILES[@]}"; do
    { echo "# CPU samples by process (all CPUs, 999 Hz)"
      perf report -i "$out.perf.data" --stdio --no-children -g none --sort comm 2>/dev/null | awk '!/^#/ && NF'
      echo "# by process and function, top 60"
      perf report -i "$out.perf.data" --stdio --no-children -g none --sort comm,dso,sym 2>/dev/null \
        | awk '!/^#/ && NF && ++n <= 60'
    } >"$out.perf.txt" || log "perf report of $out failed"
  done
  log "perf summaries: $RES/*.perf.txt (perf report -i FILE.perf.data for the call graphs)"
fi
python3 "$REPO/scripts/benchmark-replication-summary.py" "$RES" >"$RES/summary.md"
cat "$RES/summary.md"
log "results in $RES (summary.md, runs.jsonl, one JSON report per measurement)"
