package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;

/**
 * The {@link TailGroup}s of one store's dumps: at most one per event loop and binlog file, created
 * by the first dump that catches up there and closed when its last member leaves. Groups are per
 * event loop so that a group and its members share a thread: no lock, no hop between loops.
 *
 * <p>Thread-safe: the map of loops is concurrent; each loop's groups are used on that loop only.
 */
final class TailGroups {
  private final Map<EventLoop, Map<String, TailGroup>> byLoop = new ConcurrentHashMap<>();
  private final Stats stats = new Stats();

  /** What the groups did, added up over all loops. Thread-safe. */
  static final class Stats {
    private final LongAdder batches = new LongAdder();
    private final LongAdder deliveries = new LongAdder();
    private final LongAdder framings = new LongAdder();

    void served(int members, int framed) {
      batches.increment();
      deliveries.add(members);
      framings.add(framed);
    }

    /** Batches read and framed by groups. */
    long batches() {
      return batches.sum();
    }

    /** Batches handed to a member's channel: each a read and framing saved but the first. */
    long deliveries() {
      return deliveries.sum();
    }

    /** Framings of those batches (one per distinct next sequence id among a batch's members). */
    long framings() {
      return framings.sum();
    }
  }

  /**
   * Puts {@code member}, caught up at {@code at} on {@code loop}, in the loop's group of that file
   * (opened if there is none); false if it cannot join now (the group is elsewhere). On the loop.
   */
  TailGroup join(
      TailGroup.Member member,
      EventLoop loop,
      BinlogSource store,
      ServingConfig config,
      ByteBufAllocator alloc,
      Position at)
      throws IOException {
    Map<String, TailGroup> groups = byLoop.computeIfAbsent(loop, l -> new HashMap<>());
    TailGroup group = groups.get(at.file());
    if (group != null && group.join(member, at)) {
      return group;
    }
    if (group != null && !group.closed()) {
      return null;
    }
    group = TailGroup.open(loop, store, config, at, alloc, groups, stats);
    if (group.join(member, at)) {
      return group;
    }
    group.remove(member); // closes it: nobody else is in it
    return null;
  }

  Stats stats() {
    return stats;
  }

  /** The groups of {@code loop} now (tests); on the loop. */
  Map<String, TailGroup> groups(EventLoop loop) {
    return Map.copyOf(byLoop.getOrDefault(loop, Map.of()));
  }
}
