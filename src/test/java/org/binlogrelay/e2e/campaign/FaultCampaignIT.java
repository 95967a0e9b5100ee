package org.binlogrelay.e2e.campaign;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.binlogrelay.e2e.checks.TableChecksums;
import org.binlogrelay.e2e.load.Sysbench;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.MariadbSeriesTest;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fault campaign (docs/reliability.md): a primary under sysbench write load, the relay process
 * following it and a replica following the relay, while every {@link Fault} is injected repeatedly
 * at random moments (relay SIGKILL and SIGSTOP, primary restart and SIGKILL,
 * cut/stalled/slow/half-open links on both sides, a full disk and a disk device failing its writes
 * under the relay (its data directory is an ext4 on a loop device, {@link LoopExt4Disk}), a replica
 * killed or not reading; some of them overlapping), each followed by a marker transaction that must
 * reach the replica. Afterwards: the replica's GTIDs and CHECKSUM TABLE equal the primary's, the
 * relay's files are the primary's byte for byte with each transaction once, the relay never died on
 * its own and logged nothing no fault explains, and its RSS stayed under 600 MB with -Xmx256m.
 * Primaries (and their replica): MySQL 9.7 and each MariaDB series of the matrix ({@link
 * MariadbSeriesTest}).
 *
 * <p>System properties: {@code campaign.seed} (default: random, logged and in the report), {@code
 * campaign.minutes} (default 2: one deck of every fault, then more until 2 minutes have passed; at
 * most 80), {@code campaign.rate} (sysbench transactions per second, default 25), {@code
 * campaign.report.dir} (default {@code target/fault-campaign}). The long run: {@code
 * scripts/fault-campaign.sh}.
 */
@ExtendWith(ServerFarmExtension.class)
class FaultCampaignIT {
  private static final Logger LOG = LoggerFactory.getLogger(FaultCampaignIT.class);
  private static final long SEED = Long.getLong("campaign.seed", System.nanoTime());
  private static final double MINUTES = minutes();
  private static final int RATE = Integer.getInteger("campaign.rate", 25);
  private static final Duration CATCH_UP = Duration.ofMinutes(5);
  private static final long RSS_LIMIT_KB = 600L << 10;

  @Test
  @Timeout(value = 110, unit = TimeUnit.MINUTES)
  void mysqlRelaySurvivesTheFaultCampaign(ServerFarm farm, @TempDir Path dir) throws Exception {
    campaign(farm, ServerVersion.MYSQL_9_7, dir);
  }

  @MariadbSeriesTest
  @Timeout(value = 110, unit = TimeUnit.MINUTES)
  void mariadbRelaySurvivesTheFaultCampaign(
      ServerVersion version, ServerFarm farm, @TempDir Path dir) throws Exception {
    campaign(farm, version, dir);
  }

  private static double minutes() {
    double m = Double.parseDouble(System.getProperty("campaign.minutes", "2"));
    if (!(m > 0 && m <= 80)) {
      throw new IllegalArgumentException(
          "campaign.minutes="
              + m
              + ": give 0 < minutes <= 80 (run several"
              + " campaigns with different seeds for longer soaks)");
    }
    return m;
  }

  private static void campaign(ServerFarm farm, ServerVersion version, Path dir) throws Exception {
    LOG.info(
        "FAULT CAMPAIGN {}: seed {} (-Dcampaign.seed={} repeats its faults), {} min, {} tx/s",
        version,
        SEED,
        SEED,
        MINUTES,
        RATE);
    CampaignReport report = new CampaignReport(version, SEED, MINUTES, RATE);
    long diskBytes = (64L << 20) + (long) (MINUTES * RATE * (300L << 10));
    try (CampaignTopology t = CampaignTopology.startOnLoopDevice(farm, version, dir, diskBytes)) {
      try {
        FaultCampaign.createMarkers(t.primary());
        Sysbench sysbench = Sysbench.against(t.primary()).withRate(RATE);
        sysbench.prepare();
        report.prepared(StoredBinlogs.transactionsOf(t.primary()));
        t.awaitReplicaHas(t.primary().executedGtidSet(), CATCH_UP);
        try (LoadDriver load = LoadDriver.start(sysbench, t.primary())) {
          new FaultCampaign(t, new Random(SEED), report)
              .run(Duration.ofMillis((long) (MINUTES * 60_000)));
          load.finish(Duration.ofMinutes(1));
          report.put(
              "load",
              "sysbench reported "
                  + load.transactions()
                  + " transactions in "
                  + load.completedRounds()
                  + " completed rounds; "
                  + load.cutRounds()
                  + " rounds cut short by primary faults"
                  + (load.cutRounds() == 0 ? "" : " (last: `" + load.lastCut() + "`)"));
        }
        verify(t, report);
        report.result("passed");
      } catch (Throwable e) {
        report.result(
            "FAILED: " + String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString()));
        throw e;
      } finally {
        RelayDaemon relay = t.relay();
        long kills =
            relay.incarnations().stream()
                .filter(i -> i.end() != null && i.end().startsWith("SIGKILL"))
                .count();
        report.put(
            "relay process",
            relay.incarnations().size()
                + " runs: "
                + kills
                + " SIGKILLed by the"
                + " campaign, the last stopped by SIGTERM; died on its own: "
                + relay.unexpectedEnds().size()
                + "; max RSS "
                + (relay.maxRssKb() >> 10)
                + " MB sampled ("
                + relay.samples()
                + " samples), peak VmHWM "
                + (relay.maxHwmKb() >> 10)
                + " MB (-Xmx256m)");
        Path file =
            report.write(
                Path.of(System.getProperty("campaign.report.dir", "target/fault-campaign")),
                relay.incarnations().stream().map(RelayDaemon.Incarnation::log).toList());
        LOG.info("FAULT CAMPAIGN REPORT ({}):\n{}", file.toAbsolutePath(), report.markdown());
      }
    }
  }

  private static void verify(CampaignTopology t, CampaignReport report) throws Exception {
    DatabaseServer primary = t.primary();
    DatabaseServer replica = t.replica();
    String end = primary.executedGtidSet();
    t.awaitReplicaHas(end, CATCH_UP);
    assertThat(replica.executedGtidSet())
        .as("the replica's executed GTIDs vs the primary's")
        .isEqualTo(end);
    TableChecksums expected = TableChecksums.of(primary, "sbtest", "campaign");
    assertThat(expected.tables()).hasSize(5);
    assertThat(TableChecksums.of(replica, "sbtest", "campaign"))
        .as("CHECKSUM TABLE on the replica vs the primary")
        .isEqualTo(expected);
    long total = StoredBinlogs.transactionsOf(primary);
    long written = total - report.prepared();
    int markers = report.injections().size();
    report.put(
        "transactions",
        written
            + " committed on the primary during the campaign (GTIDs): "
            + (written - markers)
            + " by sysbench, "
            + markers
            + " marker rows; "
            + total
            + " with sysbench prepare");
    report.put(
        "replica",
        "executed GTIDs = the primary's (`"
            + end.replaceAll("(.{60}).+", "$1...")
            + "`); CHECKSUM TABLE of "
            + expected.tables().size()
            + " tables equal");

    StoredBinlogs.awaitSameSizes(t.relayDataDir(), primary, t.relay(), CATCH_UP);
    int status = t.relay().stop();
    assertThat(status).as("the relay's exit status after SIGTERM").isZero();
    ((LoopExt4Disk) t.disk()).remount(); // what the disk holds, not what the page cache shows
    StoredBinlogs stored = StoredBinlogs.compare(t.relayDataDir(), primary, t.crashEndedFiles());
    report.put(
        "relay's store",
        stored.files()
            + " files, "
            + (stored.bytes() >> 10)
            + " KiB, read back from the"
            + " device after remounting its ext4, byte-identical to the primary's ("
            + stored.crashEnded()
            + " crash-ended and the open one with the in-use flag"
            + " masked); "
            + stored.transactions()
            + " transactions, each GTID once; store GTIDs = primary's");

    RelayLog logs =
        RelayLog.of(t.relay().incarnations().stream().map(RelayDaemon.Incarnation::log).toList());
    report.put(
        "relay log",
        logs.warnings().values().stream().mapToInt(Integer::intValue).sum()
            + " WARN, "
            + logs.errors().values().stream().mapToInt(Integer::intValue).sum()
            + " ERROR ("
            + describe(logs.errors())
            + "), unexpected lines: "
            + logs.unexpected().size());
    LOG.info("relay WARN lines by kind: {}", describe(logs.warnings()));
    assertThat(t.relay().unexpectedEnds()).as("relay deaths the campaign did not cause").isEmpty();
    assertThat(logs.unexpected()).as("relay log lines no fault explains").isEmpty();
    assertThat(t.relay().maxRssKb())
        .as("the relay's largest sampled RSS (kB)")
        .isLessThan(RSS_LIMIT_KB);
    assertThat(t.relay().maxHwmKb())
        .as("the relay's peak RSS, VmHWM (kB)")
        .isLessThan(RSS_LIMIT_KB);
    Map<Fault, Integer> counts = report.counts();
    assertThat(counts.values())
        .as("every fault injected at least once: " + counts)
        .allMatch(n -> n > 0);
    assertThat(Arrays.stream(Fault.values()).map(counts::get).mapToInt(Integer::intValue).sum())
        .isEqualTo(report.injections().size());
  }

  private static String describe(Map<String, Integer> kinds) {
    return kinds.isEmpty()
        ? "none"
        : kinds.entrySet().stream()
            .map(e -> e.getValue() + "x " + e.getKey())
            .collect(Collectors.joining("; "));
  }
}
