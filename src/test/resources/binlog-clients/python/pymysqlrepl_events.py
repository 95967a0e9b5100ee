"""Reads a binlog stream with python-mysql-replication and prints what it decodes as JSON lines on stdout.

For BinlogLibrariesIT, which runs it (with the venv scripts/provision-binlog-clients.sh makes) against a primary and
against the relay and compares the two outputs. Lines:
  {"kind": "gtid", "gtid": "uuid:7"}                     a transaction's GTID (MySQL and MariaDB)
  {"kind": "query", "query": "..."}                      a statement event other than BEGIN
  {"kind": "rows", "op": "insert", "schema": "s", "table": "t", "pos": 1234, "rows": [{...}]}
  {"kind": "xid"}                                        a commit
  {"kind": "end", "events": N}                           the marker row was seen; then the process exits 0
The stream ends at the first inserted row of table <schema>.marker whose column token is --marker. Exit 2 if that
does not come within --timeout seconds, 1 on an error (a decoding error included).
"""

import argparse
import datetime
import decimal
import json
import signal
import sys

from pymysqlreplication import BinLogStreamReader
from pymysqlreplication.event import GtidEvent, MariadbGtidEvent, QueryEvent, XidEvent
from pymysqlreplication.row_event import DeleteRowsEvent, UpdateRowsEvent, WriteRowsEvent


def value(v):
    if v is None:
        return None
    if isinstance(v, (bytes, bytearray)):
        return "hex:" + bytes(v).hex()
    if isinstance(v, decimal.Decimal):
        return "dec:" + str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time, datetime.timedelta)):
        return "time:" + str(v)
    if isinstance(v, float):
        return "float:" + repr(v)
    if isinstance(v, (set, frozenset)):
        return sorted(value(x) for x in v)
    if isinstance(v, dict):
        return {str(value(k)): value(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}
    if isinstance(v, (list, tuple)):
        return [value(x) for x in v]
    return v


def row(values):
    return {str(k): value(v) for k, v in values.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--server-id", type=int, required=True)
    parser.add_argument("--flavor", choices=["mysql", "mariadb"], required=True)
    parser.add_argument("--marker", required=True)
    parser.add_argument("--tls", action="store_true")
    parser.add_argument("--file")
    parser.add_argument("--pos", type=int)
    parser.add_argument("--gtid", help="auto_position from this GTID set (MySQL) or position (MariaDB)")
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()

    def timed_out(signum, frame):
        print(f"no marker row '{args.marker}' within {args.timeout} s", file=sys.stderr, flush=True)
        sys.exit(2)

    signal.signal(signal.SIGALRM, timed_out)
    signal.alarm(args.timeout)

    settings = {"host": args.host, "port": args.port, "user": args.user, "passwd": args.password}
    if args.tls:
        settings["ssl"] = {"check_hostname": False}
    stream = BinLogStreamReader(
        connection_settings=settings,
        server_id=args.server_id,
        blocking=True,
        resume_stream=args.pos is not None,
        log_file=args.file,
        log_pos=args.pos,
        auto_position=args.gtid,
        is_mariadb=args.flavor == "mariadb",
        only_events=[GtidEvent, MariadbGtidEvent, QueryEvent, XidEvent, WriteRowsEvent, UpdateRowsEvent,
                     DeleteRowsEvent],
    )
    events = 0
    out = sys.stdout
    try:
        for event in stream:
            events += 1
            if isinstance(event, (GtidEvent, MariadbGtidEvent)):
                out.write(json.dumps({"kind": "gtid", "gtid": event.gtid}) + "\n")
            elif isinstance(event, QueryEvent):
                query = event.query if isinstance(event.query, str) else event.query.decode("utf-8", "replace")
                if query != "BEGIN":
                    out.write(json.dumps({"kind": "query", "query": query}) + "\n")
            elif isinstance(event, XidEvent):
                out.write(json.dumps({"kind": "xid"}) + "\n")
            else:
                if isinstance(event, WriteRowsEvent):
                    op, rows = "insert", [row(r["values"]) for r in event.rows]
                elif isinstance(event, DeleteRowsEvent):
                    op, rows = "delete", [row(r["values"]) for r in event.rows]
                else:
                    op = "update"
                    rows = [{"before": row(r["before_values"]), "after": row(r["after_values"])} for r in event.rows]
                out.write(json.dumps({"kind": "rows", "op": op, "schema": event.schema, "table": event.table,
                                      "pos": event.packet.log_pos, "rows": rows}) + "\n")
                if op == "insert" and event.table == "marker" and any(r.get("token") == args.marker for r in rows):
                    out.write(json.dumps({"kind": "end", "events": events}) + "\n")
                    out.flush()
                    return 0
            out.flush()
    finally:
        stream.close()
    print("the stream ended before the marker row", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
