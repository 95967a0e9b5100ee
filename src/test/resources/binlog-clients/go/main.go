// Command gomysql-events reads a binlog stream with go-mysql's BinlogSyncer and prints what it decodes as JSON lines
// on stdout, for BinlogLibrariesIT, which runs it (as scripts/provision-binlog-clients.sh builds it) against a
// primary and against the relay and compares the two outputs:
//
//	{"kind":"gtid","gtid":"uuid:7"}                     a transaction's GTID (MySQL and MariaDB)
//	{"kind":"query","query":"..."}                      a statement event other than BEGIN
//	{"kind":"rows","op":"insert","schema":"s","table":"t","pos":1234,"rows":[{...}]}
//	{"kind":"xid"}                                      a commit
//	{"kind":"end","events":N}                           the marker row was seen; then it closes the syncer
//
// The stream ends at the first inserted row of table <schema>.marker whose column token is -marker; the syncer is
// then closed with Close() (which sends KILL <connection id> on a new connection). go-mysql logs to stderr
// (slog text, "level=ERROR" for errors). Exit 2 if the marker does not come within -timeout, 1 on an error.
package main

import (
	"context"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/shopspring/decimal"
)

func main() {
	host := flag.String("host", "127.0.0.1", "server host")
	port := flag.Int("port", 3306, "server port")
	user := flag.String("user", "", "user")
	password := flag.String("password", "", "password")
	serverID := flag.Uint("server-id", 0, "server_id of this client")
	flavor := flag.String("flavor", "mysql", "mysql or mariadb")
	marker := flag.String("marker", "", "token of the marker row that ends the stream")
	useTLS := flag.Bool("tls", false, "TLS without verifying the certificate")
	file := flag.String("file", "", "start file (by position)")
	pos := flag.Uint("pos", 4, "start position (by position)")
	gtid := flag.String("gtid", "", "start GTID set (MySQL) or position (MariaDB); by GTID when -by-gtid")
	byGtid := flag.Bool("by-gtid", false, "start from -gtid instead of -file/-pos")
	timeout := flag.Duration("timeout", 120*time.Second, "how long to wait for the marker row")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	cfg := replication.BinlogSyncerConfig{
		ServerID: uint32(*serverID),
		Flavor:   *flavor,
		Host:     *host,
		Port:     uint16(*port),
		User:     *user,
		Password: *password,
		Logger:   logger,
	}
	if *useTLS {
		cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true}
	}
	syncer := replication.NewBinlogSyncer(cfg)

	var streamer *replication.BinlogStreamer
	var err error
	if *byGtid {
		var set mysql.GTIDSet
		set, err = mysql.ParseGTIDSet(*flavor, *gtid)
		if err != nil {
			fail(syncer, "cannot parse GTID set %q: %v", *gtid, err)
		}
		streamer, err = syncer.StartSyncGTID(set)
	} else {
		streamer, err = syncer.StartSync(mysql.Position{Name: *file, Pos: uint32(*pos)})
	}
	if err != nil {
		fail(syncer, "cannot start the sync: %v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	out := json.NewEncoder(os.Stdout)
	events := 0
	for {
		ev, err := streamer.GetEvent(ctx)
		if err == context.DeadlineExceeded {
			fmt.Fprintf(os.Stderr, "no marker row '%s' within %v (%d events printed)\n", *marker, *timeout, events)
			syncer.Close()
			os.Exit(2)
		}
		if err != nil {
			fail(syncer, "GetEvent: %v", err)
		}
		switch e := ev.Event.(type) {
		case *replication.GTIDEvent:
			events++
			next, gerr := e.GTIDNext()
			if gerr != nil {
				fail(syncer, "GTID event: %v", gerr)
			}
			emit(out, map[string]any{"kind": "gtid", "gtid": next.String()})
		case *replication.MariadbGTIDEvent:
			events++
			emit(out, map[string]any{"kind": "gtid", "gtid": e.GTID.String()})
		case *replication.QueryEvent:
			if string(e.Query) != "BEGIN" {
				events++
				emit(out, map[string]any{"kind": "query", "query": string(e.Query)})
			}
		case *replication.XIDEvent:
			events++
			emit(out, map[string]any{"kind": "xid"})
		case *replication.RowsEvent:
			events++
			op := ""
			switch ev.Header.EventType {
			case replication.WRITE_ROWS_EVENTv1, replication.WRITE_ROWS_EVENTv2:
				op = "insert"
			case replication.UPDATE_ROWS_EVENTv1, replication.UPDATE_ROWS_EVENTv2:
				op = "update"
			case replication.DELETE_ROWS_EVENTv1, replication.DELETE_ROWS_EVENTv2:
				op = "delete"
			default:
				continue
			}
			names := columnNames(e.Table)
			var rows []any
			found := false
			if op == "update" {
				for i := 0; i+1 < len(e.Rows); i += 2 {
					rows = append(rows, map[string]any{"before": row(names, e.Rows[i]), "after": row(names, e.Rows[i+1])})
				}
			} else {
				for _, r := range e.Rows {
					values := row(names, r)
					rows = append(rows, values)
					if op == "insert" && string(e.Table.Table) == "marker" && values["token"] == *marker {
						found = true
					}
				}
			}
			emit(out, map[string]any{"kind": "rows", "op": op, "schema": string(e.Table.Schema),
				"table": string(e.Table.Table), "pos": ev.Header.LogPos, "rows": rows})
			if found {
				emit(out, map[string]any{"kind": "end", "events": events})
				syncer.Close()
				os.Exit(0)
			}
		}
	}
}

func columnNames(t *replication.TableMapEvent) []string {
	names := make([]string, t.ColumnCount)
	for i := range names {
		if i < len(t.ColumnName) {
			names[i] = string(t.ColumnName[i])
		} else {
			names[i] = "col" + strconv.Itoa(i)
		}
	}
	return names
}

func row(names []string, values []any) map[string]any {
	out := make(map[string]any, len(values))
	for i, v := range values {
		name := "col" + strconv.Itoa(i)
		if i < len(names) {
			name = names[i]
		}
		out[name] = value(v)
	}
	return out
}

func value(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []byte:
		return "hex:" + hex.EncodeToString(x)
	case string:
		// go-mysql decodes VARBINARY and BINARY columns into strings of their raw bytes.
		if !utf8.ValidString(x) {
			return "hex:" + hex.EncodeToString([]byte(x))
		}
		return x
	case decimal.Decimal:
		return "dec:" + x.String()
	case float32:
		return "float:" + strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return "float:" + strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return "time:" + x.Format(time.RFC3339Nano)
	case fmt.Stringer:
		return x.String()
	default:
		return fmt.Sprintf("%T:%v", v, v)
	}
}

func emit(out *json.Encoder, line map[string]any) {
	if err := out.Encode(line); err != nil {
		fmt.Fprintf(os.Stderr, "cannot write: %v\n", err)
		os.Exit(1)
	}
}

func fail(syncer *replication.BinlogSyncer, format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	syncer.Close()
	os.Exit(1)
}
