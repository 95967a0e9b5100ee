#!/bin/bash
# The image's HEALTHCHECK: GET /health on the relay's admin port (BINLOG_RELAY_ADMIN_PORT, default 9307) on
# 127.0.0.1; healthy (exit 0) on an HTTP 200 answer, unhealthy (exit 1) otherwise, with one line saying why.
# bash's /dev/tcp does the request, so the image needs neither curl nor wget. The endpoint answers without a
# token even when the admin API has one (docs/admin-api.md).
set -u
port="${BINLOG_RELAY_ADMIN_PORT:-9307}"
if ! exec 3<>"/dev/tcp/127.0.0.1/$port"; then
  echo "unhealthy: nothing listens on 127.0.0.1:$port"
  exit 1
fi
printf 'GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
status=""
IFS= read -r -t 5 status <&3 || true
exec 3<&-
status="${status%$'\r'}"
case "$status" in
  "HTTP/1."?" 200"*) exit 0 ;;
  "") echo "unhealthy: no answer from 127.0.0.1:$port/health within 5 s"; exit 1 ;;
  *) echo "unhealthy: 127.0.0.1:$port/health answered '$status'"; exit 1 ;;
esac
