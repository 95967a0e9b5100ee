#!/bin/bash
# Entrypoint of the local MySQL / MariaDB server images (binlog-relay-ci/mysql:9.7, binlog-relay-ci/mariadb:10.11
# and :11.8, built by scripts/docker/build-images). It follows the contract of the official mysql and mariadb
# images, so that test code written for those (Testcontainers' MySQLContainer and MariaDBContainer included) runs
# unchanged against these:
#   - `docker run IMAGE` starts the server; `docker run IMAGE --server-id=2 --log-bin=b` passes the options to it;
#     `docker run IMAGE sh` runs that command instead.
#   - Data in /var/lib/mysql, initialised on the first start only (a volume that already holds a datadir is
#     started as it is); the server listens on 0.0.0.0:3306 and logs to the container's output; it runs as the
#     `mysql` user (this script starts as root, prepares the directories, and drops to `mysql` with setpriv).
#   - Variables read at initialisation (MariaDB images: the MARIADB_ name first, then the MYSQL_ one):
#       MYSQL_ROOT_PASSWORD / MARIADB_ROOT_PASSWORD              root's password (also *_FILE: read from a file)
#       MYSQL_ALLOW_EMPTY_PASSWORD / MARIADB_ALLOW_EMPTY_ROOT_PASSWORD   root without a password
#       MYSQL_RANDOM_ROOT_PASSWORD / MARIADB_RANDOM_ROOT_PASSWORD        a generated one, printed once
#       MYSQL_ROOT_HOST / MARIADB_ROOT_HOST                      root's remote host pattern (default %)
#       MYSQL_DATABASE, MYSQL_USER, MYSQL_PASSWORD (MARIADB_*)   a database, and a user with all rights on it
#     One of the three root variables is required: without, the container stops with an error saying so.
#   - /docker-entrypoint-initdb.d/*.sql, *.sql.gz and *.sh run in name order after the accounts are made,
#     against a temporary server that listens on the socket only (so nobody connects before it is ready).
set -euo pipefail

log() { printf '%s [Entrypoint] %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

if command -v mariadbd >/dev/null 2>&1; then
  FLAVOUR=mariadb SERVER=mariadbd CLIENT=mariadb ADMIN=mariadb-admin
else
  FLAVOUR=mysql SERVER=mysqld CLIENT=mysql ADMIN=mysqladmin
fi
DATADIR=/var/lib/mysql
SOCKET=/run/mysqld/mysqld.sock

# env NAME: the variable's value for this flavour (MARIADB_NAME first on MariaDB, then MYSQL_NAME; for the
# root-password ones also NAME_FILE), empty when unset.
env_value() {
  local name="$1" mysql_name="${2:-$1}" var
  local candidates=()
  [ "$FLAVOUR" = mariadb ] && candidates+=("MARIADB_${name}")
  candidates+=("MYSQL_${mysql_name}")
  for var in "${candidates[@]}"; do
    if [ -n "${!var:-}" ]; then
      printf '%s' "${!var}"
      return
    fi
    local file_var="${var}_FILE"
    if [ -n "${!file_var:-}" ]; then
      [ -r "${!file_var}" ] || die "$file_var names ${!file_var}, which cannot be read"
      cat "${!file_var}"
      return
    fi
  done
}

# sql_string VALUE: VALUE as a single-quoted SQL string literal.
sql_string() {
  local v="${1//\\/\\\\}"
  printf "'%s'" "${v//\'/\'\'}"
}

# sql_name VALUE: VALUE as a backquoted SQL identifier.
sql_name() { printf '`%s`' "${1//\`/\`\`}"; }

# The server command: a first argument that is an option means "the server with these options".
if [ "$#" -eq 0 ] || [ "${1:0:1}" = "-" ]; then
  set -- "$SERVER" "$@"
fi
if [ "$1" != "$SERVER" ] && [ "$1" != mysqld ]; then
  exec "$@"
fi
shift
# Options that ask the server to print something and exit (--version, --help, --verbose --help) need no datadir.
for arg in "$@"; do
  case "$arg" in
    -V | --version | --help | -'?') exec "$SERVER" "$@" ;;
  esac
done

if [ "$(id -u)" = 0 ]; then
  mkdir -p "$DATADIR" /run/mysqld
  # Only the top directories: a large existing datadir is not walked on each start.
  chown mysql:mysql "$DATADIR" /run/mysqld
  exec setpriv --reuid=mysql --regid=mysql --init-groups -- "$0" "$SERVER" "$@"
fi

start_temporary_server() {
  "$SERVER" "$@" --skip-networking --socket="$SOCKET" &
  TEMP_PID=$!
  local i
  for i in $(seq 1 120); do
    if "$ADMIN" --socket="$SOCKET" -uroot ping >/dev/null 2>&1 \
      || { [ -n "${ROOT_PASSWORD:-}" ] && MYSQL_PWD="$ROOT_PASSWORD" "$ADMIN" --socket="$SOCKET" -uroot ping >/dev/null 2>&1; }; then
      return
    fi
    kill -0 "$TEMP_PID" 2>/dev/null || die "the temporary server stopped during initialisation (its output is above)"
    sleep 0.5
  done
  die "the temporary server did not answer on $SOCKET within 60 s"
}

initialise() {
  local root_password allow_empty random_password root_host database user password
  root_password="$(env_value ROOT_PASSWORD)"
  if [ "$FLAVOUR" = mariadb ]; then
    allow_empty="$(env_value ALLOW_EMPTY_ROOT_PASSWORD ALLOW_EMPTY_PASSWORD)"
  else
    allow_empty="$(env_value ALLOW_EMPTY_PASSWORD)"
  fi
  random_password="$(env_value RANDOM_ROOT_PASSWORD)"
  root_host="$(env_value ROOT_HOST)"
  root_host="${root_host:-%}"
  database="$(env_value DATABASE)"
  user="$(env_value USER)"
  password="$(env_value PASSWORD)"
  if [ -z "$root_password" ] && [ -z "$allow_empty" ] && [ -z "$random_password" ]; then
    die "the database is uninitialised and no root password option is given: set one of
    ${FLAVOUR^^}_ROOT_PASSWORD, ${FLAVOUR^^}_ALLOW_EMPTY_$([ "$FLAVOUR" = mariadb ] && echo ROOT_)PASSWORD or ${FLAVOUR^^}_RANDOM_ROOT_PASSWORD"
  fi
  if [ -n "$random_password" ] && [ -z "$root_password" ]; then
    root_password="$(head -c 24 /dev/urandom | base64 | tr -d '/+=' | head -c 24)"
    log "GENERATED ROOT PASSWORD: $root_password"
  fi
  if [ "$user" = root ]; then
    die "${FLAVOUR^^}_USER=root: root is made from the ROOT_PASSWORD variables, set a different user"
  fi
  if [ -n "$user" ] && [ -z "$password" ]; then
    die "${FLAVOUR^^}_USER is set without ${FLAVOUR^^}_PASSWORD"
  fi

  log "initialising the $FLAVOUR datadir in $DATADIR"
  if [ "$FLAVOUR" = mariadb ]; then
    # --skip-name-resolve: mariadb-install-db would otherwise want resolveip for the host name; --force: go on
    # without it. unix_socket stays root's other way in (the official image's default too).
    mariadb-install-db --datadir="$DATADIR" --user=mysql --auth-root-authentication-method=normal \
      --skip-test-db --skip-name-resolve --force --rpm "$@" >/dev/null \
      || die "mariadb-install-db failed"
  else
    mysqld "$@" --initialize-insecure --datadir="$DATADIR" || die "mysqld --initialize-insecure failed"
  fi

  ROOT_PASSWORD=""
  start_temporary_server "$@"
  # Nothing of the initialisation goes to the binary log (replicas of this server start from an empty one).
  local sql="SET @@SESSION.SQL_LOG_BIN=0;"
  # Time zones are loaded like the official images do unless skipped, so CONVERT_TZ works.
  if [ -z "$(env_value INITDB_SKIP_TZINFO)" ]; then
    local tz
    tz="$(command -v mariadb-tzinfo-to-sql || command -v mysql_tzinfo_to_sql || true)"
    if [ -n "$tz" ] && [ -d /usr/share/zoneinfo ]; then
      {
        echo "SET @@SESSION.SQL_LOG_BIN=0;"
        "$tz" /usr/share/zoneinfo 2>/dev/null
      } | "$CLIENT" --socket="$SOCKET" -uroot mysql || die "loading the time zones failed"
    fi
  fi
  # mariadb-install-db also makes root@127.0.0.1, root@::1 and root@HOSTNAME without a password: root is made
  # below only.
  [ "$FLAVOUR" = mariadb ] \
    && sql+="DROP USER IF EXISTS 'root'@'127.0.0.1', 'root'@'::1', 'root'@$(sql_string "$(hostname)");"
  sql+="ALTER USER 'root'@'localhost' IDENTIFIED BY $(sql_string "$root_password");"
  if [ "$root_host" != localhost ]; then
    sql+="CREATE USER 'root'@$(sql_string "$root_host") IDENTIFIED BY $(sql_string "$root_password");"
    sql+="GRANT ALL ON *.* TO 'root'@$(sql_string "$root_host") WITH GRANT OPTION;"
    [ "$FLAVOUR" = mariadb ] && sql+="GRANT PROXY ON ''@'%' TO 'root'@$(sql_string "$root_host") WITH GRANT OPTION;"
  fi
  if [ -n "$database" ]; then
    sql+="CREATE DATABASE IF NOT EXISTS $(sql_name "$database");"
  fi
  if [ -n "$user" ]; then
    sql+="CREATE USER $(sql_string "$user")@'%' IDENTIFIED BY $(sql_string "$password");"
    [ -n "$database" ] && sql+="GRANT ALL ON $(sql_name "${database//_/\\_}").* TO $(sql_string "$user")@'%';"
  fi
  sql+="FLUSH PRIVILEGES;"
  "$CLIENT" --socket="$SOCKET" -uroot --batch <<<"$sql" || die "creating the accounts failed"
  ROOT_PASSWORD="$root_password"

  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [ -e "$f" ] || continue
    case "$f" in
      *.sh)
        log "running $f"
        if [ -x "$f" ]; then "$f"; else . "$f"; fi
        ;;
      *.sql)
        log "running $f"
        MYSQL_PWD="$root_password" "$CLIENT" --socket="$SOCKET" -uroot ${database:+"--database=$database"} <"$f" \
          || die "$f failed"
        ;;
      *.sql.gz)
        log "running $f"
        gzip -dc "$f" | MYSQL_PWD="$root_password" "$CLIENT" --socket="$SOCKET" -uroot ${database:+"--database=$database"} \
          || die "$f failed"
        ;;
      *) log "ignoring $f" ;;
    esac
  done

  MYSQL_PWD="$root_password" "$ADMIN" --socket="$SOCKET" -uroot shutdown || die "stopping the temporary server failed"
  wait "$TEMP_PID" || true
  log "initialisation done; starting the server"
}

if [ ! -d "$DATADIR/mysql" ]; then
  initialise "$@"
fi
exec "$SERVER" "$@"
