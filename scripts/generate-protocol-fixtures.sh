#!/usr/bin/env bash
# Generates the real-server binlog fixtures the protocol tests parse:
#   protocol/src/test/resources/fixtures/mysql-9.7/      binlog.00000N files + expected.properties
#   protocol/src/test/resources/fixtures/mariadb-10.11/  mariadb-bin.00000N files + expected.properties
#   protocol/src/test/resources/fixtures/mariadb-11.8/   the same workload on MariaDB 11.8 at its defaults
#                                                        (binlog_legacy_event_pos=OFF: events inside a
#                                                        transaction carry log_pos 0)
#
# Usage: scripts/generate-protocol-fixtures.sh [mysql|mariadb|mariadb-11.8|all]     (default: all)
#
# For each flavour it starts a throwaway server on 127.0.0.1 (MySQL 3370, MariaDB 3371), runs a scripted
# workload that covers the events the relay must understand (see docs/fixtures.md for what lands in which
# file), records what the server itself reports about its binlogs and GTIDs, copies the binlog files while
# the server is still running (so the last file is an active one, without a STOP event), checks every file
# with the server's own binlog reader, then stops the server and removes its data directory, also on
# failure. Re-running overwrites the fixtures; event bytes differ between runs (timestamps), the
# structure and the GTIDs do not (the MySQL server_uuid is pinned).
#
# Needs root (chroot), MySQL 9.7 and MariaDB 11.8 in the sid roots made by scripts/provision-test-servers.sh,
# and Debian 12's MariaDB 10.11 (mariadbd, mariadb-install-db, mariadb, mariadb-binlog).
set -euo pipefail

log() { printf '[fixtures] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
FIXTURES="${REPO}/protocol/src/test/resources/fixtures"
CACHE="${BINLOG_RELAY_CACHE:-${HOME}/.cache/binlog-relay}"
MYSQL_ROOT="${CACHE}/mysql-sid-root"

MYSQL_PORT=3370
MYSQL_DATA_IN_ROOT=/data/fx                 # path as mysqld sees it inside the chroot
MYSQL_SOCK_IN_ROOT=/tmp/fx.sock
MYSQL_UUID=3b1e7c52-0000-4000-8000-00000000f001   # pinned server_uuid, so GTIDs are the same every run
MYSQL_OTHER_UUID=11111111-2222-3333-4444-555555555555
MYSQL_EXPECTED_VERSION='9.7.'

MARIADB_PORT=3371
# Set by use_mariadb: the series, how MariaDB's programs are run (directly, or chroot into the sid root), the
# data directory and socket as the server sees them, and the data directory as this script sees it.
MARIADB_EXPECTED_VERSION=""
MA_RUN=()
MARIADB_DATA=""
MARIADB_SOCK=""
MARIADB_HOST_DATA=""
MARIADB_INSTALL_OPTIONS=()

use_mariadb() {
  case "$1" in
    10.11)
      MARIADB_EXPECTED_VERSION='10.11.'
      MA_RUN=()
      MARIADB_DATA=/tmp/fxm
      MARIADB_SOCK=/tmp/fxm.sock
      MARIADB_HOST_DATA="$MARIADB_DATA"
      MARIADB_INSTALL_OPTIONS=()
      ;;
    11.8)
      local root="${CACHE}/mariadb-sid-root"
      [ -x "${root}/usr/sbin/mariadbd" ] || die "MariaDB 11.8 root missing at $root; run scripts/provision-test-servers.sh"
      MARIADB_EXPECTED_VERSION='11.8.'
      MA_RUN=(chroot "$root")
      MARIADB_DATA=/data/fxm
      MARIADB_SOCK=/tmp/fxm.sock
      MARIADB_HOST_DATA="${root}${MARIADB_DATA}"
      # the host name does not resolve inside the root
      MARIADB_INSTALL_OPTIONS=(--skip-name-resolve --force)
      ;;
  esac
}

LARGE_ROW_BYTES=204800                      # the "large row event": one ~200 KB LONGBLOB value

MYSQL_PID=""
MARIADB_PID=""

# --- cleanup: stop only the servers this script started, remove their data dirs ---------------------
stop_pid() {
  local pid="$1" name="$2"
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.5
  done
  log "$name did not stop in 30 s; killing pid $pid"
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  stop_pid "$MYSQL_PID" mysqld
  MYSQL_PID=""
  stop_pid "$MARIADB_PID" mariadbd
  MARIADB_PID=""
  rm -rf "${MYSQL_ROOT:?}${MYSQL_DATA_IN_ROOT}" "${MYSQL_ROOT:?}${MYSQL_SOCK_IN_ROOT}" "${MYSQL_ROOT:?}${MYSQL_SOCK_IN_ROOT}.lock"
  if [ -n "$MARIADB_HOST_DATA" ]; then rm -rf "${MARIADB_HOST_DATA:?}"; fi
  [ "$rc" -eq 0 ] || log "failed (exit $rc); servers stopped and data dirs removed"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# --- MySQL helpers ------------------------------------------------------------------------------------
my() { chroot "$MYSQL_ROOT" mysql --socket="$MYSQL_SOCK_IN_ROOT" -uroot --batch --skip-column-names "$@"; }
my_query() { my -e "$1"; }

mysql_start() {
  # $! is mysqld itself: chroot execs the command it is given.
  chroot "$MYSQL_ROOT" mysqld --user=root --datadir="$MYSQL_DATA_IN_ROOT" --port="$MYSQL_PORT" \
    --bind-address=127.0.0.1 --mysqlx=OFF --secure-file-priv= --server-id=1 \
    --gtid-mode=ON --enforce-gtid-consistency=ON --log-bin=binlog --binlog-checksum=CRC32 \
    --socket="$MYSQL_SOCK_IN_ROOT" --log-error="${MYSQL_DATA_IN_ROOT}/error.log" &
  MYSQL_PID=$!
  for _ in $(seq 1 120); do
    if chroot "$MYSQL_ROOT" mysqladmin --socket="$MYSQL_SOCK_IN_ROOT" -uroot ping >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$MYSQL_PID" 2>/dev/null || { tail -n 30 "${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}/error.log" >&2; die "mysqld exited during start"; }
    sleep 0.5
  done
  die "mysqld did not answer ping in 60 s"
}

mysql_stop() {
  chroot "$MYSQL_ROOT" mysqladmin --socket="$MYSQL_SOCK_IN_ROOT" -uroot shutdown
  wait "$MYSQL_PID" || true
  MYSQL_PID=""
}

mysql_gtid_executed() { my_query "SELECT REPLACE(@@GLOBAL.gtid_executed, '\n', '')"; }

# --- MariaDB helpers ----------------------------------------------------------------------------------
ma() { "${MA_RUN[@]}" mariadb --no-defaults --socket="$MARIADB_SOCK" -uroot --batch --skip-column-names "$@"; }
ma_query() { ma -e "$1"; }

mariadb_start() {
  "${MA_RUN[@]}" mariadbd --no-defaults --user=root --datadir="$MARIADB_DATA" --port="$MARIADB_PORT" \
    --bind-address=127.0.0.1 --socket="$MARIADB_SOCK" --pid-file="$MARIADB_DATA/mariadbd.pid" \
    --log-error="$MARIADB_DATA/error.log" --log-bin=mariadb-bin --server-id=1 --binlog-format=ROW \
    --binlog-checksum=CRC32 --gtid-strict-mode=ON --binlog-annotate-row-events=ON &
  MARIADB_PID=$!
  for _ in $(seq 1 120); do
    if "${MA_RUN[@]}" mariadb-admin --no-defaults --socket="$MARIADB_SOCK" -uroot ping >/dev/null 2>&1; then
      return 0
    fi
    kill -0 "$MARIADB_PID" 2>/dev/null || { tail -n 30 "$MARIADB_HOST_DATA/error.log" >&2; die "mariadbd exited during start"; }
    sleep 0.5
  done
  die "mariadbd did not answer ping in 60 s"
}

mariadb_stop() {
  "${MA_RUN[@]}" mariadb-admin --no-defaults --socket="$MARIADB_SOCK" -uroot shutdown
  wait "$MARIADB_PID" || true
  MARIADB_PID=""
}

# Waits until the server's own idea of the active file's length equals the bytes on disk: MariaDB writes
# BINLOG_CHECKPOINT events from a background thread shortly after a rotation.
settle_active_file() {
  local dir="$1" status_cmd="$2" query_fn="$3" file pos size
  for _ in $(seq 1 40); do
    sleep 0.25
    read -r file pos _ < <("$query_fn" "$status_cmd")
    size=$(stat -c %s "$dir/$file")
    if [ "$pos" = "$size" ]; then
      printf '%s %s\n' "$file" "$pos"
      return 0
    fi
  done
  die "active binlog $file: server says $pos bytes, disk has $size"
}

# --- the MySQL 9.7 fixtures ---------------------------------------------------------------------------
generate_mysql() {
  local out="${FIXTURES}/mysql-9.7" data="${MYSQL_ROOT}${MYSQL_DATA_IN_ROOT}"
  [ -x "${MYSQL_ROOT}/usr/sbin/mysqld" ] || die "no MySQL root at $MYSQL_ROOT; run scripts/provision-test-servers.sh"
  local version
  version=$(chroot "$MYSQL_ROOT" mysqld --version)
  [[ "$version" == *" Ver ${MYSQL_EXPECTED_VERSION}"* ]] || die "expected mysqld ${MYSQL_EXPECTED_VERSION}x, found: $version"
  port_free "$MYSQL_PORT" || die "port $MYSQL_PORT is in use"

  log "MySQL: initialising $data"
  rm -rf "$data"
  chroot "$MYSQL_ROOT" mysqld --initialize-insecure --user=root --datadir="$MYSQL_DATA_IN_ROOT" \
    --log-error="/tmp/fx-init.err" || { cat "${MYSQL_ROOT}/tmp/fx-init.err" >&2; die "mysqld --initialize failed"; }
  rm -f "${MYSQL_ROOT}/tmp/fx-init.err"
  printf '[auto]\nserver-uuid=%s\n' "$MYSQL_UUID" >"$data/auto.cnf"
  mysql_start

  local server_version
  server_version=$(my_query "SELECT VERSION()")
  [[ "$server_version" == "${MYSQL_EXPECTED_VERSION}"* ]] || die "server reports version $server_version"
  [ "$(my_query "SELECT @@server_uuid")" = "$MYSQL_UUID" ] || die "server_uuid was not pinned"
  log "MySQL $server_version up on 127.0.0.1:$MYSQL_PORT"

  local -A previous=()
  previous[binlog.000001]="$(mysql_gtid_executed)"

  # binlog.000001: DDL, plain DML transactions, ROWS_QUERY, statement-format INTVAR/USER_VAR/RAND,
  # MyISAM autocommit (ends in a COMMIT query), an empty transaction with an explicit foreign GTID.
  # Ends with a STOP event (restart).
  my <<SQL
CREATE DATABASE fx;
USE fx;
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(64) NOT NULL, n INT NOT NULL) ENGINE=InnoDB;
ALTER TABLE t ADD COLUMN note VARCHAR(32) NULL;
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
BEGIN;
INSERT INTO t (v, n) VALUES ('a', 1), ('b', 2);
INSERT INTO t (v, n) VALUES ('c', 3);
COMMIT;
BEGIN;
UPDATE t SET n = n + 10 WHERE id <= 2;
DELETE FROM t WHERE id = 3;
COMMIT;
INSERT INTO t (v, n) VALUES ('autocommit', 4);
SET SESSION binlog_rows_query_log_events = ON;
BEGIN;
INSERT INTO t (v, n) VALUES ('rows-query', 5);
UPDATE t SET note = 'annotated' WHERE v = 'rows-query';
COMMIT;
SET SESSION binlog_rows_query_log_events = OFF;
SET SESSION binlog_format = 'STATEMENT';
SET @uv = 'user-var';
BEGIN;
INSERT INTO t (v, n) VALUES (@uv, 6);
INSERT INTO t (v, n) VALUES ('rand', FLOOR(RAND() * 1000));
COMMIT;
SET SESSION binlog_format = 'ROW';
INSERT INTO m VALUES (1, 'myisam autocommit');
BEGIN;
INSERT INTO m VALUES (2, 'myisam in a rolled-back transaction');
ROLLBACK;
SET gtid_next = '${MYSQL_OTHER_UUID}:1';
BEGIN;
COMMIT;
SET gtid_next = 'AUTOMATIC';
SQL
  previous[binlog.000002]="$(mysql_gtid_executed)"
  log "MySQL: restarting (STOP event closes binlog.000001)"
  mysql_stop
  mysql_start

  # binlog.000002: tagged GTIDs (automatic and explicit), a tagged DDL, XA two-phase commit, XA one-phase
  # commit, XA prepare + rollback. Ends with a ROTATE event (FLUSH BINARY LOGS).
  my <<SQL
USE fx;
SET gtid_next = 'AUTOMATIC:mytag';
BEGIN;
INSERT INTO t (v, n) VALUES ('tagged', 7);
COMMIT;
CREATE TABLE tagged_ddl (id INT PRIMARY KEY) ENGINE=InnoDB;
SET gtid_next = 'AUTOMATIC';
SET gtid_next = '${MYSQL_OTHER_UUID}:othertag:7';
INSERT INTO t (v, n) VALUES ('explicit tagged', 8);
SET gtid_next = 'AUTOMATIC';
XA START 'xa-two-phase';
INSERT INTO t (v, n) VALUES ('xa two phase', 9);
XA END 'xa-two-phase';
XA PREPARE 'xa-two-phase';
XA COMMIT 'xa-two-phase';
XA START 'xa-one-phase';
INSERT INTO t (v, n) VALUES ('xa one phase', 10);
XA END 'xa-one-phase';
XA COMMIT 'xa-one-phase' ONE PHASE;
XA START 'xa-rolled-back';
INSERT INTO t (v, n) VALUES ('xa rolled back', 11);
XA END 'xa-rolled-back';
XA PREPARE 'xa-rolled-back';
XA ROLLBACK 'xa-rolled-back';
SQL
  previous[binlog.000003]="$(mysql_gtid_executed)"
  my_query "FLUSH BINARY LOGS"

  # binlog.000003: compressed transactions (TRANSACTION_PAYLOAD), then a DDL and one ~200 KB row
  # (uncompressed, so the WRITE_ROWS event itself is large). Left active: no STOP, no ROTATE.
  my <<SQL
USE fx;
SET SESSION binlog_transaction_compression = ON;
BEGIN;
INSERT INTO t (v, n) VALUES ('compressed 1', 12), ('compressed 2', 13), ('compressed 3', 14);
UPDATE t SET note = 'compressed' WHERE v LIKE 'compressed%';
COMMIT;
INSERT INTO t (v, n) VALUES ('compressed autocommit', 15);
SET gtid_next = 'AUTOMATIC:mytag';
DELETE FROM t WHERE v = 'compressed autocommit';
SET gtid_next = 'AUTOMATIC';
SET SESSION binlog_transaction_compression = OFF;
CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB NOT NULL) ENGINE=InnoDB;
INSERT INTO big VALUES (1, REPEAT('0123456789abcdef', ${LARGE_ROW_BYTES} / 16));
INSERT INTO t (v, n) VALUES ('after the large row', 16);
SQL

  local end_file end_pos
  read -r end_file end_pos < <(settle_active_file "$data" "SHOW BINARY LOG STATUS" my_query)
  local gtid_executed files
  gtid_executed="$(mysql_gtid_executed)"
  files=$(my_query "SHOW BINARY LOGS" | awk '{print $1}')

  log "MySQL: copying $(echo "$files" | wc -l) binlog files to $out"
  rm -rf "$out"
  mkdir -p "$out"
  local f
  for f in $files; do cp "$data/$f" "$out/$f"; chmod 644 "$out/$f"; done

  {
    echo "# Written by scripts/generate-protocol-fixtures.sh from the server's own answers; see docs/fixtures.md."
    echo "flavor=mysql"
    echo "server.version=$server_version"
    echo "server.uuid=$MYSQL_UUID"
    echo "gtid_executed=$gtid_executed"
    echo "files=$(echo "$files" | paste -sd, -)"
    echo "end.file=$end_file"
    echo "end.position=$end_pos"
    echo "large_row.bytes=$LARGE_ROW_BYTES"
    for f in $files; do
      local decoded gtids
      decoded=$(chroot "$MYSQL_ROOT" mysqlbinlog --verify-binlog-checksum -vv "${MYSQL_DATA_IN_ROOT}/$f") \
        || die "mysqlbinlog could not read $f"
      gtids=$(grep -oE "^SET @@SESSION.GTID_NEXT= '[^']+'" <<<"$decoded" | grep -v AUTOMATIC \
        | sed -E "s/.*= '([^']+)'/\1/" | paste -sd, - || true)
      echo "file.$f.size=$(stat -c %s "$out/$f")"
      echo "file.$f.previous_gtids=${previous[$f]}"
      echo "file.$f.gtid_count=$( [ -z "$gtids" ] && echo 0 || tr ',' '\n' <<<"$gtids" | wc -l)"
      echo "file.$f.gtids=$gtids"
    done
  } >"$out/expected.properties"

  log "MySQL: verifying the copies with mysqlbinlog"
  for f in $files; do
    local copy="${MYSQL_DATA_IN_ROOT}/verify-$f"
    cp "$out/$f" "${MYSQL_ROOT}${copy}"
    chroot "$MYSQL_ROOT" mysqlbinlog --verify-binlog-checksum -vv "$copy" >"${MYSQL_ROOT}${copy}.txt" \
      || die "mysqlbinlog rejected the copy of $f"
    local last_end
    last_end=$(grep -oE 'end_log_pos [0-9]+' "${MYSQL_ROOT}${copy}.txt" | tail -n1 | awk '{print $2}')
    [ "$last_end" = "$(stat -c %s "$out/$f")" ] || die "$f: last end_log_pos $last_end is not the file size"
  done
  mysql_stop
}

# --- the MariaDB 10.11 fixtures -----------------------------------------------------------------------
mariadb_binlog_state() { ma_query "SELECT @@GLOBAL.gtid_binlog_state"; }

generate_mariadb() {
  use_mariadb "$1"
  local out="${FIXTURES}/mariadb-$1"
  "${MA_RUN[@]}" mariadbd --version >/dev/null 2>&1 || die "mariadbd $1 not installed; run scripts/provision-test-servers.sh"
  local version
  version=$("${MA_RUN[@]}" mariadbd --version)
  [[ "$version" == *" Ver ${MARIADB_EXPECTED_VERSION}"* ]] || die "expected mariadbd ${MARIADB_EXPECTED_VERSION}x, found: $version"
  port_free "$MARIADB_PORT" || die "port $MARIADB_PORT is in use"

  log "MariaDB: initialising $MARIADB_DATA"
  rm -rf "$MARIADB_HOST_DATA"
  "${MA_RUN[@]}" mariadb-install-db --no-defaults --user=root --datadir="$MARIADB_DATA" \
    --auth-root-authentication-method=normal "${MARIADB_INSTALL_OPTIONS[@]}" >"/tmp/fxm-install.log" 2>&1 \
    || { cat /tmp/fxm-install.log >&2; die "mariadb-install-db failed"; }
  rm -f /tmp/fxm-install.log
  mariadb_start

  local server_version
  server_version=$(ma_query "SELECT VERSION()")
  [[ "$server_version" == "${MARIADB_EXPECTED_VERSION}"* ]] || die "server reports version $server_version"
  log "MariaDB $server_version up on 127.0.0.1:$MARIADB_PORT"

  local -A gtid_list=()
  gtid_list[mariadb-bin.000001]="$(mariadb_binlog_state)"

  # mariadb-bin.000001: DDL (standalone GTIDs), InnoDB transactions, autocommit DML, Aria/MyISAM DML
  # (COMMIT query), a second domain, a second server id in domain 0, statement-format INTVAR/USER_VAR/RAND,
  # an InnoDB+MyISAM statement-format transaction rolled back (ROLLBACK query). Ends with a STOP event (restart).
  ma <<'SQL'
CREATE DATABASE fx;
USE fx;
CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, v VARCHAR(64) NOT NULL, n INT NOT NULL) ENGINE=InnoDB;
ALTER TABLE t ADD COLUMN note VARCHAR(32) NULL;
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
BEGIN;
INSERT INTO t (v, n) VALUES ('a', 1), ('b', 2);
INSERT INTO t (v, n) VALUES ('c', 3);
COMMIT;
BEGIN;
UPDATE t SET n = n + 10 WHERE id <= 2;
DELETE FROM t WHERE id = 3;
COMMIT;
INSERT INTO t (v, n) VALUES ('autocommit', 4);
INSERT INTO m VALUES (1, 'myisam autocommit');
SET SESSION gtid_domain_id = 2;
CREATE TABLE d2 (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
BEGIN;
INSERT INTO d2 VALUES (1, 'domain 2'), (2, 'domain 2');
COMMIT;
SET SESSION gtid_domain_id = 0;
SET SESSION server_id = 2;
INSERT INTO t (v, n) VALUES ('server id 2', 5);
SET SESSION server_id = 1;
SET SESSION binlog_format = 'STATEMENT';
SET @uv = 'user-var';
BEGIN;
INSERT INTO t (v, n) VALUES (@uv, 6);
INSERT INTO t (v, n) VALUES ('rand', FLOOR(RAND() * 1000));
COMMIT;
BEGIN;
INSERT INTO t (v, n) VALUES ('mixed, rolled back', 7);
INSERT INTO m VALUES (2, 'mixed, kept: MyISAM cannot roll back');
ROLLBACK;
SET SESSION binlog_format = 'ROW';
SQL
  gtid_list[mariadb-bin.000002]="$(mariadb_binlog_state)"
  log "MariaDB: restarting (STOP event closes mariadb-bin.000001)"
  mariadb_stop
  mariadb_start

  # mariadb-bin.000002: XA two-phase commit, XA one-phase commit, XA prepare + rollback, a domain-2
  # transaction. Ends with a ROTATE event (FLUSH BINARY LOGS).
  ma <<'SQL'
USE fx;
XA START 'xa-two-phase';
INSERT INTO t (v, n) VALUES ('xa two phase', 9);
XA END 'xa-two-phase';
XA PREPARE 'xa-two-phase';
XA COMMIT 'xa-two-phase';
XA START 'xa-one-phase';
INSERT INTO t (v, n) VALUES ('xa one phase', 10);
XA END 'xa-one-phase';
XA COMMIT 'xa-one-phase' ONE PHASE;
XA START 'xa-rolled-back';
INSERT INTO t (v, n) VALUES ('xa rolled back', 11);
XA END 'xa-rolled-back';
XA PREPARE 'xa-rolled-back';
XA ROLLBACK 'xa-rolled-back';
SET SESSION gtid_domain_id = 2;
INSERT INTO d2 VALUES (3, 'domain 2 after restart');
SET SESSION gtid_domain_id = 0;
SQL
  gtid_list[mariadb-bin.000003]="$(mariadb_binlog_state)"
  ma_query "FLUSH BINARY LOGS"

  # mariadb-bin.000003: a sequence-number jump in domain 0, a DDL and one ~200 KB row, a last domain-2
  # transaction. Left active: no STOP, no ROTATE.
  ma <<SQL
USE fx;
SET SESSION gtid_seq_no = 100;
INSERT INTO t (v, n) VALUES ('seq_no jumped to 100', 12);
CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB NOT NULL) ENGINE=InnoDB;
INSERT INTO big VALUES (1, REPEAT('0123456789abcdef', ${LARGE_ROW_BYTES} / 16));
SET SESSION gtid_domain_id = 2;
INSERT INTO d2 VALUES (4, 'domain 2 last');
SET SESSION gtid_domain_id = 0;
SQL

  local end_file end_pos
  read -r end_file end_pos < <(settle_active_file "$MARIADB_HOST_DATA" "SHOW MASTER STATUS" ma_query)
  local binlog_pos binlog_state files
  binlog_pos=$(ma_query "SELECT @@GLOBAL.gtid_binlog_pos")
  binlog_state=$(mariadb_binlog_state)
  files=$(ma_query "SHOW BINARY LOGS" | awk '{print $1}')

  log "MariaDB: copying $(echo "$files" | wc -l) binlog files to $out"
  rm -rf "$out"
  mkdir -p "$out"
  local f
  for f in $files; do cp "$MARIADB_HOST_DATA/$f" "$out/$f"; chmod 644 "$out/$f"; done

  log "MariaDB: verifying the copies with mariadb-binlog"
  {
    echo "# Written by scripts/generate-protocol-fixtures.sh from the server's own answers; see docs/fixtures.md."
    echo "flavor=mariadb"
    echo "server.version=$server_version"
    echo "server.id=1"
    echo "gtid_binlog_pos=$binlog_pos"
    echo "gtid_binlog_state=$binlog_state"
    echo "files=$(echo "$files" | paste -sd, -)"
    echo "end.file=$end_file"
    echo "end.position=$end_pos"
    echo "large_row.bytes=$LARGE_ROW_BYTES"
    for f in $files; do
      local decoded gtids last_end
      decoded=$("${MA_RUN[@]}" mariadb-binlog --no-defaults --verify-binlog-checksum -vv "$MARIADB_DATA/$f") \
        || die "mariadb-binlog rejected $f"
      last_end=$(grep -oE 'end_log_pos [0-9]+' <<<"$decoded" | tail -n1 | awk '{print $2}')
      [ "$last_end" = "$(stat -c %s "$out/$f")" ] || die "$f: last end_log_pos $last_end is not the file size"
      gtids=$(grep -oE '[[:space:]]GTID [0-9]+-[0-9]+-[0-9]+' <<<"$decoded" | awk '{print $2}' | paste -sd, - || true)
      echo "file.$f.size=$(stat -c %s "$out/$f")"
      echo "file.$f.gtid_list=${gtid_list[$f]}"
      echo "file.$f.gtid_count=$( [ -z "$gtids" ] && echo 0 || tr ',' '\n' <<<"$gtids" | wc -l)"
      echo "file.$f.gtids=$gtids"
    done
  } >"$out/expected.properties"
  mariadb_stop
}

[ "$(id -u)" -eq 0 ] || die "must run as root (chroot into the MySQL root, servers started with --user=root)"
case "${1:-all}" in
  mysql) generate_mysql ;;
  mariadb) generate_mariadb 10.11 ;;
  mariadb-11.8) generate_mariadb 11.8 ;;
  all) generate_mysql; generate_mariadb 10.11; generate_mariadb 11.8 ;;
  *) die "usage: $0 [mysql|mariadb|mariadb-11.8|all]" ;;
esac
log "done: $(du -sh "$FIXTURES" | cut -f1) in $FIXTURES"
