#!/usr/bin/env python3
"""Markdown summary of a scripts/benchmark-replication.sh run: reads RESULTS_DIR/runs.jsonl and the JSON report of
each measurement, prints every figure next to its alternative with the ratio. Usage: summary.py RESULTS_DIR"""
import json
import os
import statistics
import sys

res = sys.argv[1]
runs = [json.loads(line) for line in open(os.path.join(res, "runs.jsonl")) if line.strip()]
settings = dict(kv.split("=", 1) for kv in open(os.path.join(res, "settings.txt")).read().split() if "=" in kv)


def report(run):
    if run.get("status") != 0:
        return None
    try:
        with open(os.path.join(res, run["file"])) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fig(run, key):
    r = report(run)
    return None if r is None else r.get("figures", {}).get(key)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def num(v, digits=1):
    if v is None:
        return "–"
    if isinstance(v, float) and abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:,.{digits}f}" if isinstance(v, float) else f"{v:,}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.2f}×"


def spread(values):
    values = [v for v in values if v is not None]
    if len(values) < 2:
        return ""
    return f" ({num(min(values))}–{num(max(values))})"


out = []
p = out.append
machine = open(os.path.join(res, "machine.txt")).read().strip()
p(f"# Replication benchmark, {os.path.basename(res)}\n")
if settings.get("preset") == "small":
    p("**Validation run (`--small`): a small backlog, short runs, on whatever machine ran it. These figures show that "
      "the script works; they are not results to quote.**\n")
p("```\n" + machine + "\n```\n")
p("Settings: " + ", ".join(f"`{k}={v}`" for k, v in settings.items()) + "\n")
failed = [r for r in runs if r.get("status", 0) != 0]
if failed:
    p("**Failed measurements:** " + ", ".join(f"{r['part']} {r['source']} {r['label']} ({r['file']}.err)"
                                              for r in failed) + "\n")
for r in runs:
    if r.get("part") == "note":
        p(f"- note: {r['text']}")

# --- catch-up -------------------------------------------------------------------------------------------------------
SOURCES = {"loopback": "loopback socket, transferTo (the limit)", "relay": "relay",
           "mysql": "MySQL 9.7 dump thread", "mariadb": "MariaDB 10.11 dump thread",
           "mysqlbinlog-mysql": "mysqlbinlog --raw from MySQL", "mysqlbinlog-mariadb": "mariadb-binlog --raw from MariaDB",
           "mysqlbinlog-relay": "mysqlbinlog --raw from the relay"}
RELAY_RAW = {"mysql": "mysqlbinlog --raw from the relay", "mariadb": "mariadb-binlog --raw from the relay"}
RELAY_RAW = {"mysql": "mysqlbinlog --raw from the relay", "mariadb": "mariadb-binlog --raw from the relay"}
cold_method = next((r["method"] for r in runs if r.get("part") == "cold-method"), None)
for flavor in ("mysql", "mariadb"):
    backlog = next((r for r in runs if r.get("part") == "backlog" and r["flavor"] == flavor), None)
    if backlog is None:
        continue
    name = "MySQL 9.7" if flavor == "mysql" else "MariaDB 10.11"
    p(f"\n## Catch-up of one client, {name} backlog\n")
    p(f"Backlog: {backlog['bytes']:,} bytes in {backlog['files']} files, from the first file to {backlog['head']}; "
      f"the relay's files byte-identical to the primary's: **{backlog['relay_files_identical']}**.\n")
    for mode in ("warm", "cold"):
        rows = [r for r in runs if r.get("part") == f"catchup-{mode}" and r["flavor"] == flavor]
        if not rows:
            continue
        title = "warm page cache" if mode == "warm" else f"cold page cache ({cold_method or 'unknown method'})"
        p(f"\n### {title}\n")
        by = {}
        for r in rows:
            by.setdefault(r["source"], []).append(r)
        relay_mb = median(fig(r, "mb_per_s") for r in by.get("relay", []))
        p("| reader | MB/s (median of runs, min–max) | seconds | events/s | transactions/s | source CPU s | "
          "client CPU s | relay ÷ this (MB/s) |")
        p("|---|---|---|---|---|---|---|---|")
        for source in ("loopback", "relay", flavor, f"mysqlbinlog-{flavor}", "mysqlbinlog-relay"):
            rs = by.get(source)
            if not rs:
                continue
            mbs = [fig(r, "mb_per_s") for r in rs]
            # relay-bench's own figure covers the timed run only (not a --warmup run before it)
            cpu = median(fig(r, "source_cpu_seconds") if fig(r, "source_cpu_seconds") is not None
                         else r["source_cpu_ms"] / 1000 if r.get("source_cpu_ms") is not None else None for r in rs)
            bench_cpu = median(fig(r, "bench_cpu_seconds") for r in rs)
            label = RELAY_RAW[flavor] if source == "mysqlbinlog-relay" else SOURCES.get(source, source)
            p(f"| {label} | {num(median(mbs))}{spread(mbs)} | "
              f"{num(median(fig(r, 'seconds') for r in rs), 3)} | {num(median(fig(r, 'events_per_s') for r in rs))} | "
              f"{num(median(fig(r, 'transactions_per_s') for r in rs))} | {num(cpu, 2)} | {num(bench_cpu, 2)} | "
              f"{ratio(relay_mb, median(mbs))} |")
        p("\nClient CPU is relay-bench's own (all its threads) over the timed run: a client near the run's seconds is "
          "itself the bottleneck, and the source's figure then shows how much of a core the source needed.")
        p("\nThe relay's row against the dump thread's is the comparison; against the loopback row it is the share of "
          "the physical limit reached. mysqlbinlog times include its process start and writing the files.")

# --- fan-out ---------------------------------------------------------------------------------------------------------
for flavor, label in (("mysql", "MySQL 9.7"), ("mariadb", "MariaDB 10.11")):
    fan = [r for r in runs if r.get("part") == "fanout" and r.get("flavor", "mysql") == flavor]
    if fan:
        p(f"\n## Fan-out: N tailing clients while sysbench writes ({label} primary)\n")
        p(f"sysbench oltp_write_only at {settings.get('fanout_rate')} trx/s on the primary; each run "
          f"{settings.get('fanout_seconds')} s.\n")
        wrote = {(r["source"], r["clients"]): r["primary_bytes"] / 1e3 / r["ms"] for r in runs
                 if r.get("part") == "fanout-load" and r.get("flavor", "mysql") == flavor and r["ms"] > 0}
        p("| clients | source | primary wrote MB/s | aggregate MB/s | per client MB/s | trx/s per client | lag p50 / p95 / p99 / max ms | "
          "source CPU mean / max % | source RSS max MB | relay heap max MB |")
        p("|---|---|---|---|---|---|---|---|---|---|")
        counts = sorted({int(r["label"]) for r in fan})
        p99 = {}
        for n in counts:
            pair = {r["source"]: r for r in fan if int(r["label"]) == n}
            for source in ("relay", flavor):
                r = pair.get(source)
                if r is None:
                    continue
                tps = fig(r, "transactions_per_s")
                rss = fig(r, "source_rss_max_bytes")
                lag = " / ".join(num(fig(r, k), 1) for k in ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms"))
                p(f"| {n} | {'relay' if source == 'relay' else label} | {num(wrote.get((source, str(n))), 2)} | "
                  f"{num(fig(r, 'mb_per_s'), 2)} | "
                  f"{num(fig(r, 'per_client_mb_per_s'), 3)} | {num(tps / n if tps is not None else None)} | {lag} | "
                  f"{num(fig(r, 'source_cpu_mean_percent'))} / {num(fig(r, 'source_cpu_max_percent'))} | "
                  f"{num(rss / 1e6 if rss else None)} | {num(r['relay_heap_max_bytes'] / 1e6)} |")
            if "relay" in pair and flavor in pair:
                a, b = pair["relay"], pair[flavor]
                p(f"| {n} | **relay ÷ {label}** | | {ratio(fig(a, 'mb_per_s'), fig(b, 'mb_per_s'))} | "
                  f"{ratio(fig(a, 'per_client_mb_per_s'), fig(b, 'per_client_mb_per_s'))} | | "
                  + " / ".join(ratio(fig(a, k), fig(b, k)) for k in ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms"))
                  + f" | {ratio(fig(a, 'source_cpu_mean_percent'), fig(b, 'source_cpu_mean_percent'))} | "
                  f"{ratio(fig(a, 'source_rss_max_bytes'), fig(b, 'source_rss_max_bytes'))} | |")
                p99[n] = ratio(fig(a, 'lag_p99_ms'), fig(b, 'lag_p99_ms'))
        if p99:
            p(f"\n**p99 lag, relay ÷ {label}** (target ≤ 1): " + "; ".join(f"{n} clients {v}" for n, v in p99.items()) + ".")
        p("\nEach client should receive what the primary wrote: compare \"per client MB/s\" with \"primary wrote MB/s\" "
          "(measured over the whole measurement, client start included, so a little lower). sysbench's rate is a target "
          "that a busy machine misses and makes up later, so the two sources' runs do not see exactly the same load.")
        p("\nBefore each measurement all clients connect and reach the head (not timed); how long that took, i.e. "
          "N logins and the catch-up meanwhile: " + "; ".join(
              f"{n} clients: relay {num(fig(pr.get('relay'), 'settle_seconds') if pr.get('relay') else None, 2)} s, "
              f"{label} {num(fig(pr.get(flavor), 'settle_seconds') if pr.get(flavor) else None, 2)} s"
              for n, pr in ((n, {r['source']: r for r in fan if int(r['label']) == n}) for n in counts)) + ".")
        p("\nLag here is the client-side fan-out lag of docs/bench.md (head polled every 100 ms; error up to one poll "
          "round trip). The relay's RSS includes its JVM heap; MySQL's includes its buffer pool.")
        p("\nDoes the lag grow? The median lag in the first and the last quarter of each run, the least-squares slope of "
          "the per-second medians (about 0 when the clients keep up, positive when they fall behind), and the clients' "
          "own CPU (relay-bench; when it nears the machine's free cores, the clients are the bottleneck):\n")
        p("| clients | source | lag p50 first quarter ms | lag p50 last quarter ms | growth ms/s | relay-bench CPU % |")
        p("|---|---|---|---|---|---|")
        for n in counts:
            for source in ("relay", flavor):
                r = next((x for x in fan if int(x["label"]) == n and x["source"] == source), None)
                if r is None or fig(r, "lag_growth_ms_per_s") is None:
                    continue
                p(f"| {n} | {'relay' if source == 'relay' else label} | {num(fig(r, 'lag_p50_first_quarter_ms'), 1)} | "
                  f"{num(fig(r, 'lag_p50_last_quarter_ms'), 1)} | {num(fig(r, 'lag_growth_ms_per_s'), 2)} | "
                  f"{num(fig(r, 'bench_cpu_mean_percent'))} |")

# --- lag ----------------------------------------------------------------------------------------------------------------
lag = [r for r in runs if r.get("part") == "lag"]
if lag:
    loads = {(r["path"], r["rate"]): r["tps"] for r in runs if r.get("part") == "lag-load"}
    p("\n## Lag added by the relay: primary → replica vs primary → relay → replica\n")
    p(f"sysbench oltp_update_non_index (one autocommit UPDATE per transaction) at each rate, {settings.get('lag_seconds')} s "
      "per run; pt-heartbeat style lag (docs/bench.md, `lag`), both replicas replicating throughout.\n")
    p("| target trx/s | path | reached trx/s | p50 ms | p95 ms | p99 ms | max ms | samples |")
    p("|---|---|---|---|---|---|---|---|")
    rates = []
    for r in lag:
        if r["label"] not in rates:
            rates.append(r["label"])
    for rate in rates:
        pair = {r["source"]: r for r in lag if r["label"] == rate}
        for path in ("direct", "relay"):
            r = pair.get(path)
            if r is None:
                continue
            p(f"| {rate} | {'primary → replica' if path == 'direct' else 'primary → relay → replica'} | "
              f"{num(loads.get((path, rate)))} | " + " | ".join(num(fig(r, k), 2) for k in
                                                         ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms"))
              + f" | {num(fig(r, 'samples'))} |")
        if "direct" in pair and "relay" in pair:
            a, b = pair["relay"], pair["direct"]
            keys = ("lag_p50_ms", "lag_p95_ms", "lag_p99_ms", "lag_max_ms")
            added = [None if fig(a, k) is None or fig(b, k) is None else fig(a, k) - fig(b, k) for k in keys]
            p(f"| {rate} | **added by the relay (ms)** | | " + " | ".join(num(v, 2) for v in added) + " | |")
            p(f"| {rate} | **relay path ÷ direct** | | " + " | ".join(ratio(fig(a, k), fig(b, k)) for k in keys) + " | |")
    own = [r for r in lag if r["source"] == "relay" and fig(r, "relay_latency_observations") is not None]
    if own:
        p("\nThe relay's own view during the relay-path runs, from its /metrics (`lag --relay-metrics`): how far it was "
          "behind the primary (`binlogrelay_upstream_behind_source_seconds`, sampled every 500 ms) and how long "
          "transactions spent in it (`binlogrelay_relay_latency_seconds`, the run's share of the histogram; a "
          "quantile is known to its bucket):\n")
        p("| target trx/s | relay behind the primary p50 / p99 / max ms | time in the relay mean / p50 / p95 / p99 ms | "
          "transactions handed over |")
        p("|---|---|---|---|")
        for r in own:
            p(f"| {r['label']} | " + " / ".join(num(fig(r, k), 2) for k in ("relay_upstream_behind_p50_ms",
              "relay_upstream_behind_p99_ms", "relay_upstream_behind_max_ms")) + " | "
              + " / ".join(num(fig(r, k), 2) if isinstance(fig(r, k), (int, float)) else str(fig(r, k)) for k in
                           ("relay_latency_mean_ms", "relay_latency_p50_ms", "relay_latency_p95_ms",
                            "relay_latency_p99_ms")) + f" | {num(fig(r, 'relay_latency_observations'))} |")

# --- synthetic primary: relay-added latency at a controlled rate -------------------------------------------------------
synth = [r for r in runs if r.get("part") == "synthetic"]
if synth:
    p("\n## Relay-added latency at a controlled rate: relay-bench's synthetic primary → relay → client\n")
    p(f"Recorded MySQL 9.7 row transactions replayed by `relay-bench synthetic` at each rate, "
      f"{settings.get('synthetic_seconds')} s measured after 5 s of warm-up; latency from the return of the primary's "
      "socket write carrying a transaction to the client's read of its XID (one clock, docs/bench.md `synthetic`). "
      "Target (issue 19): p99 < 1 ms at 5,000 trx/s with the relay's default sync.\n")
    p("| relay sync | target trx/s | achieved trx/s | p50 ms | p99 ms | p99.9 ms | max ms | every trx once | "
      "relay CPU % | relay CPU µs/trx | relay's own p99 ms |")
    p("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in synth:
        sync, _, rate = r["label"].rpartition("-")
        own = fig(r, "relay_latency_p99_ms")
        p(f"| {sync} | {rate} | {num(fig(r, 'achieved_trx_per_s'))} | "
          + " | ".join(num(fig(r, k), 3) for k in ("latency_p50_ms", "latency_p99_ms", "latency_p999_ms",
                                                   "latency_max_ms"))
          + f" | {fig(r, 'every_transaction_once')} | {num(fig(r, 'relay_cpu_percent'))} | "
          f"{num(fig(r, 'relay_cpu_us_per_trx'), 1)} | {num(own, 3) if isinstance(own, (int, float)) else own} |")

# --- the relay's resources ------------------------------------------------------------------------------------------------
measured = [r for r in runs if r.get("wall_ms")]
if measured:
    p("\n## The relay's CPU, RSS and heap in each measurement\n")
    p("CPU in percent of one core over the measurement (from /proc/PID/stat); RSS and heap (`jvm_memory_used_bytes`, "
      "area heap, from its /metrics) the maximum of 0.5 s samples.\n")
    p("| measurement | wall s | relay CPU % | relay RSS max MB | relay heap max MB | source CPU % |")
    p("|---|---|---|---|---|---|")
    for r in measured:
        wall = r["wall_ms"] / 1000
        scpu = r.get("source_cpu_ms")
        p(f"| {r['flavor']} {r['part']} {r['source']} {r['label']} | {num(wall, 2)} | "
          f"{num(100 * r['relay_cpu_ms'] / r['wall_ms'])} | {num(r['relay_rss_max_kb'] / 1e3)} | "
          f"{num(r['relay_heap_max_bytes'] / 1e6)} | {num(100 * scpu / r['wall_ms']) if scpu is not None else '–'} |")

print("\n".join(out))
