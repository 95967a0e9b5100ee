#!/usr/bin/env bash
# A local demo topology, everything on 127.0.0.1: a throwaway primary with a light write load, binlog-relay
# following it, and one replica replicating from the relay. Prints what to run next (relayctl, /metrics).
# Ctrl-C (or SIGTERM) stops everything it started, by process id, and deletes the demo's directory.
#
#   scripts/demo-topology.sh [RELAY OPTIONS...]      normally run by scripts/run when no source is given
#
# Flavour: MySQL 9.7 by default, from the Debian sid root that scripts/provision-test-servers.sh builds and caches
# in ${BINLOG_RELAY_CACHE:-~/.cache/binlog-relay}/mysql-sid-root (built here if missing; chroot needs root or
# sudo). MariaDB 10.11 from Debian with --flavor mariadb (passed on to the relay too) or DEMO_FLAVOR=mariadb.
#
# Extra arguments go to the relay (e.g. --port 3310, --sync-binlog 2s). Environment:
#   BINLOG_RELAY_JAR     the relay's jar (scripts/run sets it; default server/target/binlog-relay.jar)
#   DEMO_FLAVOR          mysql (default) or mariadb
#   DEMO_SECONDS         stop by itself after this many seconds, printing a summary (default: run until Ctrl-C)
#   DEMO_WRITE_SECONDS   bound on the write load (default 900 s); the topology stays up afterwards
#   DEMO_KEEP_DIR=1      keep the demo's directory at the end (for a look at the stored files)
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '[demo] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

JAR="${BINLOG_RELAY_JAR:-server/target/binlog-relay.jar}"
[ -f "$JAR" ] || die "no relay jar at $JAR; run scripts/run (it builds the relay first)"
JAR="$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")"
WRITE_SECONDS="${DEMO_WRITE_SECONDS:-900}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

FLAVOR="${DEMO_FLAVOR:-mysql}"
for ((k = 1; k <= $#; k++)); do
  case "${!k}" in
    --flavor) j=$((k + 1)); FLAVOR="${!j:-}" ;;
    --flavor=*) FLAVOR="${!k#--flavor=}" ;;
  esac
done
FLAVOR="$(printf '%s' "$FLAVOR" | tr '[:upper:]' '[:lower:]')"
case "$FLAVOR" in mysql|mariadb) ;; *) die "flavour '$FLAVOR' not understood; use mysql or mariadb" ;; esac

# --- the servers' software ------------------------------------------------------------------------------------
if [ "$FLAVOR" = mysql ]; then
  CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}"
  ROOT="$CACHE/mysql-sid-root"
  if [ ! -f "$ROOT/.binlog-relay-provisioned" ] || [ ! -x "$ROOT/usr/sbin/mysqld" ]; then
    log "no MySQL 9.7 root in $ROOT: building it with scripts/provision-test-servers.sh (a few minutes, once)"
    scripts/provision-test-servers.sh || die "provisioning failed; or run the MariaDB demo: scripts/run --flavor mariadb"
  fi
  BASE="$ROOT/data"            # MySQL runs in the root: everything it touches lives below it
else
  if ! command -v mariadbd >/dev/null && [ ! -x /usr/sbin/mariadbd ] || ! command -v mariadb >/dev/null; then
    log "installing MariaDB from Debian (mariadb-server, mariadb-client; the packages scripts/provision-test-servers.sh installs)"
    $SUDO apt-get update -qq || log "apt-get update reported errors (continuing)"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client >/dev/null
  fi
  MARIADBD="$(command -v mariadbd || echo /usr/sbin/mariadbd)"
  INSTALL_DB="$(command -v mariadb-install-db || echo /usr/bin/mariadb-install-db)"
  BASE="${TMPDIR:-/tmp}"
fi
ME="$(id -un)"

# --- the demo's directory and its cleanup -------------------------------------------------------------------
$SUDO mkdir -p "$BASE"
DEMO_DIR="$($SUDO mktemp -d "$BASE/binlog-relay-demo.XXXXXX")"
$SUDO chown "$ME" "$DEMO_DIR"
PRIMARY_PID=""
REPLICA_PID=""
RELAY_PID=""
WRITER_PID=""

stop_process() { # PID NAME SECONDS: SIGTERM, wait, then SIGKILL; only the process we started, by its id
  local pid="$1" name="$2" seconds="$3"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || $SUDO kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq $((seconds * 10))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  log "$name (pid $pid) did not stop within ${seconds} s; killing it"
  kill -KILL "$pid" 2>/dev/null || $SUDO kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  log "stopping the demo"
  stop_process "$WRITER_PID" "write load" 5
  stop_process "$REPLICA_PID" "replica" 60
  stop_process "$RELAY_PID" "relay" 60
  stop_process "$PRIMARY_PID" "primary" 60
  if [ "${DEMO_KEEP_DIR:-0}" = 1 ]; then
    log "kept $DEMO_DIR"
  else
    $SUDO rm -rf "$DEMO_DIR"
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

# --- servers: one function per flavour for init, start and the client ---------------------------------------
in_root() { # a path of the demo as the server sees it
  if [ "$FLAVOR" = mysql ]; then echo "/${1#"$ROOT"/}"; else echo "$1"; fi
}

init_datadir() { # DIR: a fresh data directory (root without password, on the socket only)
  local dir="$1"
  if [ "$FLAVOR" = mysql ]; then
    $SUDO chroot "$ROOT" mysqld --no-defaults --initialize-insecure --user=root --datadir="$(in_root "$dir")" \
      --innodb-buffer-pool-size=64M --innodb-redo-log-capacity=64M \
      --log-error="$(in_root "$DEMO_DIR")/initialize.log" \
      || { tail -n 20 "$DEMO_DIR/initialize.log" >&2; die "mysqld --initialize-insecure failed (log above)"; }
  else
    "$INSTALL_DB" --no-defaults --user="$ME" --datadir="$dir" --auth-root-authentication-method=normal \
      --skip-test-db --innodb-buffer-pool-size=64M --innodb-log-file-size=48M >"$DEMO_DIR/initialize.log" 2>&1 \
      || { tail -n 20 "$DEMO_DIR/initialize.log" >&2; die "mariadb-install-db failed (log above)"; }
  fi
}

start_server() { # NAME PORT SERVER_ID: starts it in the background; its pid in SERVER_PID
  local name="$1" port="$2" id="$3" d="$DEMO_DIR/$1"
  local common=(--port="$port" --bind-address=127.0.0.1 --server-id="$id" --skip-name-resolve
    --socket="$(in_root "$d")/mysqld.sock" --pid-file="$(in_root "$d")/mysqld.pid"
    --log-error="$(in_root "$d")/error.log" --log-bin=binlog --binlog-format=ROW --binlog-checksum=CRC32
    --max-binlog-size=1M --innodb-buffer-pool-size=64M --performance-schema=OFF --relay-log=relay)
  if [ "$FLAVOR" = mysql ]; then
    $SUDO chroot "$ROOT" mysqld --no-defaults --user=root --datadir="$(in_root "$d")/data" "${common[@]}" \
      --gtid-mode=ON --enforce-gtid-consistency=ON --log-replica-updates=ON --mysqlx=OFF \
      --innodb-redo-log-capacity=64M --secure-file-priv= --skip-replica-start >"$d/console.log" 2>&1 &
  else
    "$MARIADBD" --no-defaults --user="$ME" --datadir="$d/data" "${common[@]}" --gtid-strict-mode=ON \
      --log-slave-updates=ON --innodb-log-file-size=48M --skip-slave-start --master-retry-count=86400 \
      >"$d/console.log" 2>&1 &
  fi
  SERVER_PID=$!
}

sql() { # NAME [CLIENT ARGS...]: the client on NAME's socket, as root
  local name="$1"
  shift
  if [ "$FLAVOR" = mysql ]; then
    $SUDO chroot "$ROOT" mysql --no-defaults -uroot --socket="$(in_root "$DEMO_DIR/$name")/mysqld.sock" "$@"
  else
    mariadb --no-defaults -uroot --socket="$DEMO_DIR/$name/mysqld.sock" "$@"
  fi
}

await_server() { # NAME PID
  for _ in $(seq 900); do
    sql "$1" -e 'SELECT 1' >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { tail -n 20 "$DEMO_DIR/$1/error.log" >&2; die "the $1 exited at start (log above)"; }
    sleep 0.1
  done
  tail -n 20 "$DEMO_DIR/$1/error.log" >&2
  die "the $1 did not answer within 90 s"
}

# --- primary and replica --------------------------------------------------------------------------------------
log "initialising a $FLAVOR data directory in $DEMO_DIR"
mkdir -p "$DEMO_DIR/primary" "$DEMO_DIR/replica"
init_datadir "$DEMO_DIR/primary/data"
$SUDO cp -a "$DEMO_DIR/primary/data" "$DEMO_DIR/replica/data"
$SUDO rm -f "$DEMO_DIR/replica/data/auto.cnf"   # MySQL: the replica makes its own server_uuid

PRIMARY_PORT="$(free_port)"
start_server primary "$PRIMARY_PORT" 1
PRIMARY_PID=$SERVER_PID
await_server primary "$PRIMARY_PID"
log "$FLAVOR $(sql primary -N -e 'SELECT VERSION()') primary on 127.0.0.1:$PRIMARY_PORT (pid $PRIMARY_PID)"

PRIMARY_PASSWORD="$(random_password)"
if [ "$FLAVOR" = mysql ]; then IDENTIFIED="IDENTIFIED WITH caching_sha2_password BY"; else IDENTIFIED="IDENTIFIED BY"; fi
sql primary <<SQL
CREATE USER 'repl'@'%' $IDENTIFIED '$PRIMARY_PASSWORD';
GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
CREATE DATABASE demo;
CREATE TABLE demo.events (id BIGINT AUTO_INCREMENT PRIMARY KEY, at TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP(6),
  payload VARCHAR(255) NOT NULL);
DELIMITER //
CREATE PROCEDURE demo.write_load(seconds INT)
BEGIN
  DECLARE i INT DEFAULT 0;
  DECLARE stop_at DATETIME DEFAULT NOW() + INTERVAL seconds SECOND;
  WHILE NOW() < stop_at DO
    SET i = i + 1;
    INSERT INTO demo.events (payload) VALUES (CONCAT('row ', i, '.0 ', REPEAT('x', 100))),
      (CONCAT('row ', i, '.1 ', REPEAT('x', 100))), (CONCAT('row ', i, '.2 ', REPEAT('x', 100))),
      (CONCAT('row ', i, '.3 ', REPEAT('x', 100))), (CONCAT('row ', i, '.4 ', REPEAT('x', 100))),
      (CONCAT('row ', i, '.5 ', REPEAT('x', 100))), (CONCAT('row ', i, '.6 ', REPEAT('x', 100))),
      (CONCAT('row ', i, '.7 ', REPEAT('x', 100))), (CONCAT('row ', i, '.8 ', REPEAT('x', 100))),
      (CONCAT('row ', i, '.9 ', REPEAT('x', 100)));
    IF i % 150 = 0 THEN
      FLUSH BINARY LOGS;
    END IF;
    DO SLEEP(0.2);
  END WHILE;
END//
DELIMITER ;
SQL
umask 077
printf '%s\n' "$PRIMARY_PASSWORD" >"$DEMO_DIR/primary-password"

# --- the write load: one client running demo.write_load: 10 rows every 0.2 s, a new binlog every 30 s ----------
sql primary -e "CALL demo.write_load($WRITE_SECONDS)" 2>>"$DEMO_DIR/writer.log" &
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
ADMIN_PORT=""
if java -jar "$JAR" --help 2>/dev/null | grep -q -- '--admin-port'; then
  ADMIN_PORT=9307
  port_taken "$ADMIN_PORT" && ADMIN_PORT="$(free_port)"
  RELAY_ARGS+=(--admin-port "$ADMIN_PORT")
fi

REPL_PASSWORD="$(random_password)"
PLUGIN=caching_sha2_password
[ "$FLAVOR" = mysql ] || PLUGIN=mysql_native_password
HASH="$(printf '%s' "$REPL_PASSWORD" | java -cp "$JAR" org.binlogrelay.protocol.auth.PasswordHashes \
  | awk -v p="$PLUGIN" '$1 == p {print $2}')"
[ -n "$HASH" ] || die "could not make a password hash with $JAR"
# MySQL 9 replicas require TLS from their source: a self-signed certificate for the relay.
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj '/CN=binlog-relay-demo' -keyout "$DEMO_DIR/relay-key.pem" \
  -out "$DEMO_DIR/relay-cert.pem" >"$DEMO_DIR/openssl.log" 2>&1 \
  || { cat "$DEMO_DIR/openssl.log" >&2; die "openssl could not make the relay's certificate (apt-get install openssl)"; }
cat >"$DEMO_DIR/accounts" <<ACCOUNTS
# user@host  privileges                            $PLUGIN hash
repl@%       REPLICATION_SLAVE,REPLICATION_CLIENT  $HASH
ACCOUNTS

BINLOG_RELAY_PRIMARY_PASSWORD="$PRIMARY_PASSWORD" java -jar "$JAR" \
  --source "$FLAVOR://repl@127.0.0.1:$PRIMARY_PORT" --server-id 100 --report-host 127.0.0.1 \
  --data-dir "$DEMO_DIR/relay-data" --accounts-file "$DEMO_DIR/accounts" \
  --ssl-cert "$DEMO_DIR/relay-cert.pem" --ssl-key "$DEMO_DIR/relay-key.pem" "${RELAY_ARGS[@]}" &
RELAY_PID=$!

for _ in $(seq 600); do
  port_taken "$RELAY_PORT" && break
  kill -0 "$RELAY_PID" 2>/dev/null || die "the relay exited at start (its log is above)"
  sleep 0.1
done
port_taken "$RELAY_PORT" || die "the relay did not listen on 127.0.0.1:$RELAY_PORT within 60 s"

# --- the replica, replicating from the relay by GTID -------------------------------------------------------------
REPLICA_PORT="$(free_port)"
start_server replica "$REPLICA_PORT" 3
REPLICA_PID=$SERVER_PID
await_server replica "$REPLICA_PID"
if [ "$FLAVOR" = mysql ]; then
  sql replica -e "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=$RELAY_PORT, SOURCE_USER='repl',
    SOURCE_PASSWORD='$REPL_PASSWORD', SOURCE_AUTO_POSITION=1, SOURCE_SSL=1, SOURCE_CONNECT_RETRY=1,
    SOURCE_RETRY_COUNT=86400;
    START REPLICA;"
  STATUS_SQL="SHOW REPLICA STATUS"
else
  sql replica -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$RELAY_PORT, MASTER_USER='repl',
    MASTER_PASSWORD='$REPL_PASSWORD', MASTER_USE_GTID=slave_pos, MASTER_SSL=1, MASTER_CONNECT_RETRY=1;
    START SLAVE;"
  STATUS_SQL="SHOW SLAVE STATUS"
fi
log "$FLAVOR replica on 127.0.0.1:$REPLICA_PORT (pid $REPLICA_PID), replicating from the relay"

rows() { sql "$1" -N -e 'SELECT COUNT(*) FROM demo.events' 2>/dev/null || echo 0; }
for _ in $(seq 600); do
  [ "$(rows replica)" -gt 0 ] && break
  kill -0 "$RELAY_PID" 2>/dev/null || die "the relay exited (its log is above)"
  sleep 0.1
done
[ "$(rows replica)" -gt 0 ] || { sql replica -E -e "$STATUS_SQL" >&2 || true; die "the replica received nothing within 60 s (status above)"; }

if [ -n "$ADMIN_PORT" ]; then
  RELAYCTL="scripts/relayctl"
  [ "$ADMIN_PORT" = 9307 ] || RELAYCTL="scripts/relayctl --url http://127.0.0.1:$ADMIN_PORT"   # 9307 was taken
  NEXT="   $RELAYCTL lag --watch      every hop's lag and catch-up ETA, live
   $RELAYCTL status
   http://127.0.0.1:$ADMIN_PORT/metrics   the Prometheus metrics (curl -s it, or point Prometheus there)"
else
  NEXT="   (this relay build has no admin API yet: scripts/relayctl and http://127.0.0.1:9307/metrics come with it)"
fi
if [ "$FLAVOR" = mysql ]; then
  CLIENT="chroot $ROOT mysql"
  STATUS_HINT="SHOW REPLICA STATUS\\G"
else
  CLIENT="mariadb"
  STATUS_HINT="SHOW SLAVE STATUS\\G"
fi

cat >&2 <<BANNER

======================================================================================================
 Demo topology is up (everything on 127.0.0.1; Ctrl-C stops it and deletes $DEMO_DIR)

   primary   $FLAVOR on port $PRIMARY_PORT, $((WRITE_SECONDS / 60)) min of writes into demo.events (10 rows / 0.2 s)
   relay     port $RELAY_PORT${ADMIN_PORT:+, admin API and /metrics on http://127.0.0.1:$ADMIN_PORT}, storing into $DEMO_DIR/relay-data
   replica   $FLAVOR on port $REPLICA_PORT, replicating from the relay by GTID ($(rows replica) rows so far)
   account   repl / $REPL_PASSWORD   (on the relay; hash in $DEMO_DIR/accounts)

 What to run next:
$NEXT
 Ask the relay what it stores:
   $CLIENT --no-defaults -h127.0.0.1 -P$RELAY_PORT -urepl -p$REPL_PASSWORD -e 'SHOW BINARY LOGS'
 The replica's view:
   $CLIENT --no-defaults -uroot --socket=$(in_root "$DEMO_DIR/replica")/mysqld.sock -e '$STATUS_HINT'
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
  log "summary: primary $(rows primary) rows, replica $(rows replica) rows, relay stores $(find "$DEMO_DIR/relay-data" -name 'binlog.[0-9]*' | wc -l) binlog file(s)"
else
  wait "$RELAY_PID" || true
  log "the relay exited"
fi
