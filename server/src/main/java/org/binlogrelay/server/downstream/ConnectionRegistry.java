package org.binlogrelay.server.downstream;

import io.netty.channel.Channel;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.binlogrelay.server.downstream.sql.Connections;
import org.binlogrelay.server.downstream.sql.ProcessInfo;
import org.binlogrelay.storage.Time;

/**
 * The logged-in connections of a {@link ReplicaServer}, by connection id: what {@code SHOW
 * PROCESSLIST} lists and {@code KILL} ends. Each connection's entry says what it does (sleeping,
 * running a statement, dumping) and since when; a dump's finer state (sending, caught up, paused)
 * comes from the dump handler ({@link DumpActivity}). An entry goes when its connection closes;
 * bounded by the connection limit.
 *
 * <p>Thread-safe: a concurrent map; each entry is written by its connection's event loop (volatile
 * fields) and read by any.
 */
final class ConnectionRegistry implements Connections {
  private final Map<Long, Entry> entries = new ConcurrentHashMap<>();
  private final Time time;
  private volatile DumpActivity dumps = DumpActivity.UNKNOWN;

  ConnectionRegistry(Time time) {
    this.time = time;
  }

  void dumpActivity(DumpActivity activity) {
    this.dumps = activity == null ? DumpActivity.UNKNOWN : activity;
  }

  /** One connection. Written on its event loop. */
  static final class Entry {
    private final long id;
    private final String user;
    private final String host;
    private final Channel channel;
    private final Time time;
    private volatile String database;
    private volatile ProcessInfo.Activity activity = ProcessInfo.Activity.SLEEP;
    private volatile long sinceMillis;
    private volatile String info;
    private volatile boolean gtidDump;

    private Entry(long id, String user, String host, Channel channel, Time time) {
      this.id = id;
      this.user = user;
      this.host = host;
      this.channel = channel;
      this.time = time;
      this.sinceMillis = time.milliseconds();
    }

    /** A statement starts. */
    void query(String sql, String db) {
      database = db;
      info = sql;
      activity = ProcessInfo.Activity.QUERY;
      sinceMillis = time.milliseconds();
    }

    /** The statement was answered. */
    void idle(String db) {
      database = db;
      info = null;
      activity = ProcessInfo.Activity.SLEEP;
      sinceMillis = time.milliseconds();
    }

    /** The connection serves a dump from now on. */
    void dump(boolean gtid) {
      info = null;
      gtidDump = gtid;
      activity = ProcessInfo.Activity.DUMP_SENDING;
      sinceMillis = time.milliseconds();
    }
  }

  /** Records a connection that logged in; its entry goes when the channel closes. */
  Entry register(long id, String user, String host, Channel channel) {
    Entry e = new Entry(id, user, host, channel, time);
    entries.put(id, e);
    channel.closeFuture().addListener(f -> entries.remove(id));
    return e;
  }

  @Override
  public List<ProcessInfo> list() {
    long now = time.milliseconds();
    List<ProcessInfo> all = new ArrayList<>(entries.size());
    for (Entry e : entries.values()) {
      ProcessInfo.Activity activity = e.activity;
      if (activity == ProcessInfo.Activity.DUMP_SENDING) {
        Optional<ProcessInfo.Activity> known = dumps.of(e.id);
        activity = known.orElse(activity);
      }
      long millis = Math.max(0, now - e.sinceMillis);
      all.add(
          new ProcessInfo(
              e.id,
              e.user,
              e.host,
              e.database,
              activity,
              millis / 1000,
              e.info,
              millis,
              e.gtidDump));
    }
    all.sort(Comparator.comparingLong(ProcessInfo::id));
    return all;
  }

  @Override
  public boolean kill(long id, boolean queryOnly) {
    Entry e = entries.get(id);
    if (e == null) {
      return false;
    }
    if (!queryOnly || e.activity.ordinal() >= ProcessInfo.Activity.DUMP_STARTING.ordinal()) {
      e.channel.close();
    }
    return true;
  }
}
