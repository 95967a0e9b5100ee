#!/bin/sh
# Entrypoint of the relay's image (docker/Dockerfile): runs `java $JAVA_OPTS -jar binlog-relay.jar ARGS...` as PID 1
# (exec), so that docker stop's SIGTERM reaches the relay, which stops cleanly and exits 0.
#
# The relay reads its configuration from BINLOG_RELAY_* variables itself (docs/running.md: BINLOG_RELAY_SOURCE,
# BINLOG_RELAY_SERVER_ID, BINLOG_RELAY_PRIMARY_PASSWORD_FILE, ...; command-line arguments win). This script only
# sets the defaults that differ in a container:
#   BINLOG_RELAY_DATA_DIR           /var/lib/binlog-relay (the image's volume)
#   BINLOG_RELAY_BIND_ADDRESS       0.0.0.0: replicas reach the relay from other containers
#   BINLOG_RELAY_ADMIN_BIND_ADDRESS 0.0.0.0 when BINLOG_RELAY_ADMIN_TOKEN_FILE is set (the admin API requires a
#                                   token off loopback); else the relay's default, 127.0.0.1 (the health check
#                                   runs inside the container)
# and, for any secret given as a variable NAME_FILE that the relay has no option for, nothing: use the
# *_FILE options the relay has (BINLOG_RELAY_PRIMARY_PASSWORD_FILE, BINLOG_RELAY_ADMIN_TOKEN_FILE).
#
# A first argument that is not an option runs that command instead (docker run IMAGE sh).
# BINLOG_RELAY_JAR overrides the jar's path (to run this script outside the image, as DockerFilesIT does).
set -eu

JAR="${BINLOG_RELAY_JAR:-/opt/binlog-relay/binlog-relay.jar}"

case "${1:-}" in
  ''|-*) ;;
  *) exec "$@" ;;
esac

: "${BINLOG_RELAY_DATA_DIR:=/var/lib/binlog-relay}"
: "${BINLOG_RELAY_BIND_ADDRESS:=0.0.0.0}"
export BINLOG_RELAY_DATA_DIR BINLOG_RELAY_BIND_ADDRESS
if [ -n "${BINLOG_RELAY_ADMIN_TOKEN_FILE:-}" ] && [ -z "${BINLOG_RELAY_ADMIN_BIND_ADDRESS:-}" ]; then
  BINLOG_RELAY_ADMIN_BIND_ADDRESS=0.0.0.0
  export BINLOG_RELAY_ADMIN_BIND_ADDRESS
fi

# JAVA_OPTS is split on spaces on purpose (several JVM options in one variable).
# shellcheck disable=SC2086
exec java ${JAVA_OPTS:-} -jar "$JAR" "$@"
