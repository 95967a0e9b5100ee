#!/usr/bin/env bash
# A local demo topology: a throwaway MariaDB 10.11 primary on a free loopback port with a small, bounded write
# load, and binlog-relay following it and serving replicas on 127.0.0.1. Prints how to connect a replica,
# mariadb or mysqlbinlog to the relay. Ctrl-C (or SIGTERM) stops everything and deletes the demo's directory.
#
#   scripts/demo-topology.sh [RELAY OPTIONS...]      normally run by scripts/run when no --primary is given
#
# Extra arguments go to the relay (e.g. --port 3310, --sync-binlog 2s). Environment:
#   BINLOG_RELAY_JAR     the relay's jar (scripts/run sets it; default server/target/binlog-relay.jar)
#   DEMO_SECONDS         stop by itself after this many seconds (default: run until Ctrl-C)
#   DEMO_WRITE_SECONDS   bound on the write load (default 900 s); the topology stays up afterwards
#   DEMO_KEEP_DIR=1      keep the demo's directory at the end (for a look at the stored files)
# Everything listens on 127.0.0.1 only. Needs Debian's mariadbd (installed here with apt-get if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[demo] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

JAR="${BINLOG_RELAY_JAR:-server/target/binlog-relay.jar}"
[ -f "$JAR" ] || die "no relay jar at $JAR; run scripts/run (it builds the relay first)"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
WRITE_SECONDS="${DEMO_WRITE_SECONDS:-900}"

# --- MariaDB ------------------------------------------------------------------------------------------------
if ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ] || ! command -v mariadb >/dev/null; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  log "installing MariaDB from Debian (mariadb-server, mariadb-client; the same packages scripts/provision-test-servers.sh installs)"
  $SUDO apt-get update -qq || log "apt-get update reported errors (continuing)"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >/dev/null
fi
MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
INSTALL_DB="$(command -v mariadb-install-db || echo /usr/bin/mariadb-install-db)"
ME="$(id -un)"

# --- the demo's directory and its cleanup -------------------------------------------------------------------
DEMO_DIR="$(mktemp -d "${TMPDIR:-/tmp}/binlog-relay-demo.XXXXXX")"
PRIMARY_PID=""
RELAY_PID=""
WRITER_PID=""

stop_process() { # PID NAME SECONDS: SIGTERM, wait, then SIGKILL; only the process we started, by its id
  local pid="$1" name="$2" seconds="$3"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq $((seconds * 10))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  log "$name (pid $pid) did not stop within ${seconds} s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  log "stopping the demo"
  stop_process "$WRITER_PID" "write load" 5
  stop_process "$RELAY_PID" "relay" 60
  stop_process "$PRIMARY_PID" "MariaDB primary" 60
  if [ "${DEMO_KEEP_DIR:-0}" = 1 ]; then
    log "kept $DEMO_DIR"
  else
    rm -rf "$DEMO_DIR"
    log "deleted $DEMO_DIR"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { # a loopback port nobody listens on (bash's /dev/tcp: a refused connection means free)
  local port
  for _ in $(seq 200); do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  die "found no free port on 127.0.0.1"
}
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
random_password() { tr -dc 'A-Za-z0-9' </dev/urandom | head -c 16 || true; }

# --- the primary ----------------------------------------------------------------------------------------------
PRIMARY_PORT="$(free_port)"
P="$DEMO_DIR/primary"
mkdir -p "$P/data" "$P/binlog"
log "initialising a MariaDB data directory in $P"
"$INSTALL_DB" --no-defaults --user="$ME" --datadir="$P/data" --auth-root-authentication-method=normal \
  --skip-test-db --innodb-buffer-pool-size=64M --innodb-log-file-size=48M >"$P/install.log" 2>&1 \
  || { tail -n 20 "$P/install.log" >&2; die "mariadb-install-db failed (log above)"; }

"$MARIADBD" --no-defaults --user="$ME" --datadir="$P/data" --port="$PRIMARY_PORT" --bind-address=127.0.0.1 \
  --socket="$P/mysqld.sock" --pid-file="$P/mysqld.pid" --log-error="$P/error.log" \
  --server-id=1 --log-bin="$P/binlog/binlog" --binlog-format=ROW --binlog-checksum=CRC32 \
  --gtid-strict-mode=ON --max-binlog-size=1M --innodb-buffer-pool-size=64M --innodb-log-file-size=48M \
  --performance-schema=OFF --skip-name-resolve >"$P/console.log" 2>&1 &
PRIMARY_PID=$!

sql() { mariadb --no-defaults -uroot --socket="$P/mysqld.sock" "$@"; }
for _ in $(seq 600); do
  sql -e 'SELECT 1' >/dev/null 2>&1 && break
  kill -0 "$PRIMARY_PID" 2>/dev/null || { tail -n 20 "$P/error.log" >&2; die "mariadbd exited at start (log above)"; }
  sleep 0.1
done
sql -e 'SELECT 1' >/dev/null 2>&1 || { tail -n 20 "$P/error.log" >&2; die "mariadbd did not answer within 60 s"; }
log "MariaDB $(sql -N -e 'SELECT VERSION()') primary on 127.0.0.1:$PRIMARY_PORT (pid $PRIMARY_PID)"

PRIMARY_PASSWORD="$(random_password)"
sql <<SQL
CREATE USER 'repl'@'%' IDENTIFIED BY '$PRIMARY_PASSWORD';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
CREATE DATABASE demo;
CREATE TABLE demo.events (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP(6),
  payload VARCHAR(255) NOT NULL);
SQL
umask 077
printf '%s\n' "$PRIMARY_PASSWORD" >"$DEMO_DIR/primary-password"

# --- the write load: 10 rows every 0.2 s, a new binlog file every 30 s, for WRITE_SECONDS --------------------
(
  end=$((SECONDS + WRITE_SECONDS))
  i=0
  while [ "$SECONDS" -lt "$end" ]; do
    i=$((i + 1))
    values="('row $i.0')"
    for j in 1 2 3 4 5 6 7 8 9; do values="$values,('row $i.$j $(printf '%0100d' "$j")')"; done
    sql -e "INSERT INTO demo.events (payload) VALUES $values" 2>>"$DEMO_DIR/writer.log" || true
    [ $((i % 150)) -ne 0 ] || sql -e 'FLUSH BINARY LOGS' 2>>"$DEMO_DIR/writer.log" || true
    sleep 0.2
  done
) &
WRITER_PID=$!

# --- the relay --------------------------------------------------------------------------------------------------
RELAY_PORT=3307
RELAY_ARGS=("$@")
for arg in "$@"; do
  case "$arg" in --port|--port=*) RELAY_PORT="" ;; esac
done
if [ -n "$RELAY_PORT" ]; then
  port_taken "$RELAY_PORT" && RELAY_PORT="$(free_port)"
  RELAY_ARGS+=(--port "$RELAY_PORT")
else
  for ((k = 0; k < ${#RELAY_ARGS[@]}; k++)); do
    case "${RELAY_ARGS[$k]}" in
      --port) RELAY_PORT="${RELAY_ARGS[$((k + 1))]:-}" ;;
      --port=*) RELAY_PORT="${RELAY_ARGS[$k]#--port=}" ;;
    esac
  done
fi

REPL_PASSWORD="$(random_password)"
HASH="$(printf '%s' "$REPL_PASSWORD" | java -cp "$JAR" org.binlogrelay.protocol.auth.PasswordHashes \
  | awk '$1 == "mysql_native_password" {print $2}')"
[ -n "$HASH" ] || die "could not make a password hash with $JAR"
cat >"$DEMO_DIR/accounts" <<ACCOUNTS
# user@host  privileges                            mysql_native_password hash (MariaDB's default plugin)
repl@%       REPLICATION_SLAVE,REPLICATION_CLIENT  $HASH
ACCOUNTS

java -jar "$JAR" --primary "127.0.0.1:$PRIMARY_PORT" --primary-user repl \
  --primary-password-file "$DEMO_DIR/primary-password" --server-id 100 --report-host 127.0.0.1 \
  --data-dir "$DEMO_DIR/relay-data" --accounts-file "$DEMO_DIR/accounts" "${RELAY_ARGS[@]}" &
RELAY_PID=$!

for _ in $(seq 600); do
  port_taken "$RELAY_PORT" && break
  kill -0 "$RELAY_PID" 2>/dev/null || die "the relay exited at start (its log is above)"
  sleep 0.1
done
port_taken "$RELAY_PORT" || die "the relay did not listen on 127.0.0.1:$RELAY_PORT within 60 s"

cat >&2 <<BANNER

======================================================================================================
 Demo topology is up (everything on 127.0.0.1; Ctrl-C stops it and deletes $DEMO_DIR)

   primary   MariaDB on port $PRIMARY_PORT, $((WRITE_SECONDS / 60)) min of writes into demo.events, a new binlog every 30 s
   relay     port $RELAY_PORT, following the primary, storing into $DEMO_DIR/relay-data
   account   repl / $REPL_PASSWORD   (on the relay; hash in $DEMO_DIR/accounts)

 Ask the relay what it stores:
   mariadb -h127.0.0.1 -P$RELAY_PORT -urepl -p$REPL_PASSWORD -e 'SHOW BINARY LOGS; SHOW MASTER STATUS'
 Read a binlog from the relay:
   mysqlbinlog --read-from-remote-server --host=127.0.0.1 --port=$RELAY_PORT --user=repl \\
       --password=$REPL_PASSWORD binlog.000001 | head -40
 Point a MariaDB replica at it:
   CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$RELAY_PORT, MASTER_USER='repl',
       MASTER_PASSWORD='$REPL_PASSWORD', MASTER_USE_GTID=slave_pos; START SLAVE;
 The stored files themselves:
   ls -l $DEMO_DIR/relay-data
======================================================================================================

BANNER

if [ -n "${DEMO_SECONDS:-}" ]; then
  for _ in $(seq "$DEMO_SECONDS"); do
    kill -0 "$RELAY_PID" 2>/dev/null || break
    sleep 1
  done
  log "DEMO_SECONDS=$DEMO_SECONDS reached"
else
  wait "$RELAY_PID" || true
  log "the relay exited"
fi
