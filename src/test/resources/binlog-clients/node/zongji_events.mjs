// Reads a binlog stream with zongji (@vlasky/zongji, installed by scripts/provision-binlog-clients.sh) and prints
// what it decodes as JSON lines on stdout, for BinlogLibrariesIT, which runs it against a primary and against the
// relay and compares the two outputs:
//   {"kind":"ready"}                                       once the dump was requested (startAtEnd: writes may go)
//   {"kind":"gtid","gtid":"uuid:7"}                        a transaction's GTID (MySQL and MariaDB)
//   {"kind":"query","query":"..."}                         a statement event other than BEGIN
//   {"kind":"rows","op":"insert","schema":"s","table":"t","pos":1234,"gtid":"...","rows":[{...}]}
//   {"kind":"xid"}                                         a commit
//   {"kind":"end","events":N}                              the marker row was seen; then the process exits 0
// The stream ends at the first inserted row of table <schema>.marker whose column token is --marker. Exit 2 if that
// does not come within --timeout seconds, 1 on an error.
//
// node zongji_events.mjs --modules DIR --host H --port P --user U --password W --server-id N --marker TOKEN
//     [--tls] [--file F --pos N | --gtid SET | --start-at-end] [--timeout S]
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const args = {};
for (let i = 2; i < process.argv.length; i++) {
  const name = process.argv[i].replace(/^--/, '');
  const next = process.argv[i + 1];
  if (next === undefined || next.startsWith('--')) {
    args[name] = true;
  } else {
    args[name] = next;
    i++;
  }
}
for (const required of ['modules', 'host', 'port', 'user', 'password', 'server-id', 'marker']) {
  if (args[required] === undefined) {
    console.error(`missing --${required}`);
    process.exit(1);
  }
}

// zongji is an ES module in the provisioned node_modules, outside this directory: import it by path.
const zongjiIndex = path.join(args.modules, '@vlasky', 'zongji', 'index.js');
const { default: ZongJi } = await import(pathToFileURL(zongjiIndex).href);

function value(v) {
  if (v === null || v === undefined) return null;
  if (Buffer.isBuffer(v)) return 'hex:' + v.toString('hex');
  if (v instanceof Date) return isNaN(v.getTime()) ? 'invalid-date' : v.toISOString();
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(value);
  if (typeof v === 'object') {
    const out = {};
    for (const key of Object.keys(v).sort()) out[key] = value(v[key]);
    return out;
  }
  return v;
}

function row(r) {
  const out = {};
  for (const key of Object.keys(r)) out[key] = value(r[key]);
  return out;
}

let events = 0;
let finished = false;
const print = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const zongji = new ZongJi({
  host: args.host,
  port: Number(args.port),
  user: args.user,
  password: args.password,
  ssl: args.tls ? { rejectUnauthorized: false } : undefined,
});

const finish = (code) => {
  if (finished) return;
  finished = true;
  clearTimeout(timer);
  zongji.on('stopped', () => process.exit(code));
  zongji.stop();
  setTimeout(() => process.exit(code), 5000).unref();
};

const timer = setTimeout(() => {
  console.error(`no marker row '${args.marker}' within ${args.timeout || 120} s (${events} events printed)`);
  finish(2);
}, 1000 * Number(args.timeout || 120));

zongji.on('error', (err) => {
  console.error('zongji error: ' + (err && err.stack ? err.stack : err));
  finish(1);
});

zongji.on('ready', () => print({ kind: 'ready' }));

zongji.on('binlog', (evt) => {
  if (finished) return;
  const type = evt.getEventName();
  if (type === 'gtid' || type === 'mariadbgtid') {
    events++;
    print({ kind: 'gtid', gtid: evt.gtid });
  } else if (type === 'query') {
    if (evt.query !== 'BEGIN') {
      events++;
      print({ kind: 'query', query: evt.query });
    }
  } else if (type === 'xid') {
    events++;
    print({ kind: 'xid' });
  } else if (type === 'writerows' || type === 'updaterows' || type === 'deleterows') {
    events++;
    const table = evt.tableMap[evt.tableId];
    const op = type === 'writerows' ? 'insert' : type === 'updaterows' ? 'update' : 'delete';
    const rows = evt.rows.map((r) => (op === 'update' ? { before: row(r.before), after: row(r.after) } : row(r)));
    print({ kind: 'rows', op, schema: table.parentSchema, table: table.tableName, pos: evt.nextPosition,
      gtid: evt.gtid === undefined ? null : evt.gtid, rows });
    if (op === 'insert' && table.tableName === 'marker' && rows.some((r) => r.token === args.marker)) {
      print({ kind: 'end', events });
      finish(0);
    }
  }
});

const options = {
  serverId: Number(args['server-id']),
  includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows', 'xid', 'query', 'gtid', 'mariadbgtid'],
};
if (args.gtid !== undefined) {
  options.gtidSet = args.gtid === true ? '' : args.gtid;
} else if (args['start-at-end']) {
  options.startAtEnd = true;
} else {
  options.filename = args.file;
  options.position = Number(args.pos);
}
zongji.start(options);
