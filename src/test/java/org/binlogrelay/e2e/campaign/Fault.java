package org.binlogrelay.e2e.campaign;

import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import org.binlogrelay.e2e.upstream.FaultyProxy;

/**
 * Test side: the faults of the campaign, each injected on a {@link CampaignTopology} and healed
 * again by {@link #inject}, with its particulars (how long, how slow, how much room, whether a
 * second fault overlaps) drawn from the campaign's seeded {@link Random}. {@code inject} returns
 * once the fault is over (the process runs again, the link forwards, the disk has room); the
 * campaign then writes a marker row and waits for the replica to have it.
 *
 * <p>The relay follows the primary with a 500 ms heartbeat (a silent link is dead after 1.5 s); the
 * replica has a 1 s heartbeat and a 4 s net timeout. Pauses and stalls are drawn across those
 * timeouts, mostly beyond them.
 */
enum Fault {
  RELAY_SIGKILL("relay SIGKILLed, restarted (one in four times killed again during its start-up)") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      RelayDaemon relay = t.relay();
      int status = relay.kill();
      requireKilled(status);
      String detail = "";
      if (random.nextInt(4) == 0) {
        relay.start();
        long after = 100L + random.nextInt(1_400);
        hold(after);
        requireKilled(relay.kill());
        detail = "killed again " + after + " ms into its start-up; ";
      }
      long down = random.nextInt(2_000);
      hold(down);
      relay.start();
      return detail + "down " + down + " ms";
    }
  },
  RELAY_SIGSTOP(
      "relay SIGSTOPped for 2-12 s (past the heartbeat timeouts), then SIGCONT; one in three times the"
          + " primary restarts meanwhile") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      long ms = 2_000L + random.nextInt(10_000);
      boolean primaryRestarts = random.nextInt(3) == 0;
      long started = System.nanoTime();
      t.relay().pause();
      try {
        if (primaryRestarts) {
          t.primary().restart();
        }
        hold(Math.max(0, ms - (System.nanoTime() - started) / 1_000_000));
      } finally {
        t.relay().resume();
      }
      return "stopped "
          + (System.nanoTime() - started) / 1_000_000
          + " ms"
          + (primaryRestarts ? ", the primary restarted meanwhile" : "");
    }
  },
  PRIMARY_RESTART("primary restarted (SIGTERM, start)") {
    @Override
    String inject(CampaignTopology t, Random random) {
      t.primary().restart();
      return "";
    }
  },
  PRIMARY_SIGKILL(
      "primary SIGKILLed, started again (crash recovery); one in three times the relay is SIGKILLed"
          + " and restarted while the primary is down") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      String file = t.killPrimary();
      long down = random.nextInt(2_000);
      String relayToo = "";
      if (random.nextInt(3) == 0) {
        requireKilled(t.relay().kill());
        t.relay().start();
        t.relay().awaitInLog("relay running", 1, CampaignTopology.START);
        relayToo = ", the relay SIGKILLed and started again meanwhile";
      }
      hold(down);
      t.primary().start();
      return "crash-ended " + file + ", down " + down + " ms" + relayToo;
    }
  },
  UPSTREAM_CUT("relay-primary link reset (RST both ways)") {
    @Override
    String inject(CampaignTopology t, Random random) {
      t.upstreamLink().drop();
      return "";
    }
  },
  UPSTREAM_STALL("relay-primary link stalled 0.5-8 s, then forwarding again") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      return stall(t.upstreamLink(), 500 + random.nextInt(7_500));
    }
  },
  UPSTREAM_SLOW("relay-primary link throttled to 2-32 KB/s for 3-10 s") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      return slow(t.upstreamLink(), random);
    }
  },
  UPSTREAM_HALF_OPEN("relay-primary link half-open: primary side closed, relay side silent") {
    @Override
    String inject(CampaignTopology t, Random random) {
      t.upstreamLink().halfOpen();
      return "";
    }
  },
  DOWNSTREAM_CUT("replica-relay link reset (RST both ways)") {
    @Override
    String inject(CampaignTopology t, Random random) {
      t.downstreamLink().drop();
      return "";
    }
  },
  DOWNSTREAM_STALL("replica-relay link stalled 1-10 s, then forwarding again") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      return stall(t.downstreamLink(), 1_000 + random.nextInt(9_000));
    }
  },
  DOWNSTREAM_SLOW("replica-relay link throttled to 2-32 KB/s for 3-10 s") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      return slow(t.downstreamLink(), random);
    }
  },
  DOWNSTREAM_HALF_OPEN("replica-relay link half-open: relay side closed, replica side silent") {
    @Override
    String inject(CampaignTopology t, Random random) {
      t.downstreamLink().halfOpen();
      return "";
    }
  },
  DISK_FULL(
      "relay's file system (ext4) full for 1-8 s, then freed; one in three times the replica's link is"
          + " cut meanwhile and the replica must reconnect to the relay with the full disk") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      RelayDaemon relay = t.relay();
      long full = relay.countInLog(OUT_OF_SPACE);
      long resumed = relay.countInLog(RESUMED);
      long headroom = random.nextInt(64 << 10);
      long hold = 1_000L + random.nextInt(7_000);
      boolean cut = random.nextInt(3) == 0;
      long taken = t.disk().fill(headroom);
      long started = System.nanoTime();
      relay.awaitInLog(OUT_OF_SPACE, full + 1, Duration.ofSeconds(90));
      long filledAfter = (System.nanoTime() - started) / 1_000_000;
      long heldFrom = System.nanoTime();
      String reconnected = "";
      if (cut) {
        long registered = relay.countInLog(REPLICA_REGISTERED);
        t.downstreamLink().drop();
        relay.awaitInLog(REPLICA_REGISTERED, registered + 1, Duration.ofSeconds(60));
        reconnected = ", the replica's link cut and the replica back on the relay meanwhile";
      }
      hold(Math.max(0, hold - (System.nanoTime() - heldFrom) / 1_000_000));
      long held = (System.nanoTime() - heldFrom) / 1_000_000;
      t.disk().free();
      relay.awaitInLog(RESUMED, resumed + 1, Duration.ofMinutes(2));
      return "filled with "
          + taken
          + " bytes ("
          + headroom
          + " left free), full after "
          + filledAfter
          + " ms, held "
          + held
          + " ms"
          + reconnected;
    }
  },
  IO_ERROR(
      "relay's disk device fails its writes for 1-8 s (ext4 writeback fails, fsync returns the error), then"
          + " takes them again; the store cuts back to what is durable and the primary sends the rest again."
          + " If a failed metadata write made the kernel turn the ext4 read-only, the relay is"
          + " SIGKILLed, the file system repaired (e2fsck) and the relay started again") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      if (!(t.disk() instanceof LoopExt4Disk disk)) {
        throw new IllegalStateException(
            "an I/O error needs the relay on a loop device"
                + " (CampaignTopology.startOnLoopDevice)");
      }
      RelayDaemon relay = t.relay();
      long failed = relay.countInLog(OUT_OF_SPACE) + relay.countInLog(IO_FAILED);
      long resumed = relay.countInLog(RESUMED);
      long cutBack = relay.countInLog(CUT_BACK);
      long hold = 1_000L + random.nextInt(7_000);
      long size = disk.failWrites();
      long started = System.nanoTime();
      awaitEither(relay, OUT_OF_SPACE, IO_FAILED, failed + 1, Duration.ofSeconds(90));
      long failedAfter = (System.nanoTime() - started) / 1_000_000;
      hold(hold);
      disk.healWrites();
      String repaired = "";
      if (awaitResumedOrReadOnly(relay, disk, resumed + 1, Duration.ofMinutes(2))) {
        // The relay kept serving and probing its store; the disk needs an operator. SIGKILL (a
        // clean stop would try to write to a read-only store), repair, start: the relay recovers
        // from what the repaired file system holds.
        requireKilled(relay.kill());
        disk.repair();
        relay.start();
        repaired =
            "; the kernel turned the ext4 read-only (journal aborted on a failed metadata write):"
                + " relay SIGKILLed, file system repaired with e2fsck, relay started again";
      }
      return "device's backing tmpfs shrunk to "
          + size
          + " bytes, first failed force after "
          + failedAfter
          + " ms, held "
          + hold
          + " ms, "
          + (relay.countInLog(CUT_BACK) > cutBack
              ? "cut back to the durable boundary"
              : "nothing past the durable boundary to cut")
          + repaired;
    }
  },
  REPLICA_SIGKILL("replica's mysqld SIGKILLed, started again") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      t.replica().kill();
      long down = random.nextInt(2_000);
      hold(down);
      t.replica().start();
      return "down " + down + " ms";
    }
  },
  REPLICA_IO_STOPPED("replica stops reading: STOP REPLICA IO_THREAD for 2-10 s") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      long ms = 2_000L + random.nextInt(8_000);
      t.onReplica("STOP REPLICA IO_THREAD", "STOP SLAVE IO_THREAD");
      hold(ms);
      t.onReplica("START REPLICA IO_THREAD", "START SLAVE IO_THREAD");
      return "stopped " + ms + " ms";
    }
  },
  REPLICA_SIGSTOP("replica stops reading: its mysqld SIGSTOPped for 2-10 s, then SIGCONT") {
    @Override
    String inject(CampaignTopology t, Random random) throws InterruptedException {
      long ms = 2_000L + random.nextInt(8_000);
      long pid = t.replicaPid();
      Signal.STOP.send(pid);
      try {
        hold(ms);
      } finally {
        Signal.CONT.send(pid);
      }
      return "stopped " + ms + " ms";
    }
  };

  /** The store's first ERROR line of a full disk (Availability). */
  static final String OUT_OF_SPACE = " is out of space: ";

  /** The store's first ERROR line of an I/O error (Availability). */
  static final String IO_FAILED = " hit an I/O error: ";

  /** The store's line when it resumes after a failed force (Resumption). */
  static final String CUT_BACK = "cutting the store back to it";

  /** The replicator's line once the store accepts writes again. */
  static final String RESUMED = "the store accepts writes again";

  /** The downstream server's line when a replica registers (COM_REGISTER_SLAVE). */
  static final String REPLICA_REGISTERED = "registered from";

  private final String description;

  Fault(String description) {
    this.description = description;
  }

  String description() {
    return description;
  }

  /** Injects the fault and heals it; returns its particulars for the report. */
  abstract String inject(CampaignTopology topology, Random random) throws Exception;

  private static void requireKilled(int status) {
    if (status != 128 + 9) {
      throw new AssertionError("the relay ended with " + status + " instead of 137 when SIGKILLed");
    }
  }

  /**
   * Waits until the relay logs {@code count} lines "the store accepts writes again" (false) or the
   * disk has turned read-only (true), whichever comes first.
   */
  private static boolean awaitResumedOrReadOnly(
      RelayDaemon relay, LoopExt4Disk disk, long count, Duration limit)
      throws InterruptedException {
    return eventually(
        limit,
        count + " lines \"" + RESUMED + "\" in the relay's log, or its ext4 read-only",
        () -> {
          relay.requireNoUnexpectedEnd();
          if (relay.countInLog(RESUMED) >= count) {
            return Boolean.FALSE;
          }
          return disk.readOnly() ? Boolean.TRUE : null;
        },
        Objects::nonNull);
  }

  /** Waits until the relay's log has {@code count} lines with either text, together. */
  private static void awaitEither(
      RelayDaemon relay, String one, String other, long count, Duration limit)
      throws InterruptedException {
    eventually(
        limit,
        count + " lines \"" + one.strip() + "\" or \"" + other.strip() + "\" in the relay's log",
        () -> {
          relay.requireNoUnexpectedEnd();
          return relay.countInLog(one) + relay.countInLog(other);
        },
        logged -> logged >= count);
  }

  /**
   * Keeps a fault in place for {@code ms}: its duration, drawn by the campaign, not a wait for
   * anything.
   */
  private static void hold(long ms) throws InterruptedException {
    Thread.sleep(ms);
  }

  private static String stall(FaultyProxy link, long ms) throws InterruptedException {
    link.stall(Duration.ofMillis(ms));
    return "stalled " + ms + " ms";
  }

  private static String slow(FaultyProxy link, Random random) throws InterruptedException {
    int rate = 2_048 + random.nextInt(30 << 10);
    long ms = 3_000L + random.nextInt(7_000);
    link.throttle(rate);
    try {
      hold(ms);
    } finally {
      link.throttle(0);
    }
    return rate + " bytes/s for " + ms + " ms";
  }
}
