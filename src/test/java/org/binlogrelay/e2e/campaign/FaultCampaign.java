package org.binlogrelay.e2e.campaign;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Test side: the campaign loop. Faults are dealt from shuffled decks of every {@link Fault} (so
 * each kind comes once per deck, in a random order), one at a time: a random 1-6 s of plain load,
 * the fault (injected and healed by {@link Fault#inject}), then a marker row written on the primary
 * ({@link #MARKERS}) and a wait until the replica has every transaction the primary has then:
 * whatever the fault, the chain must carry a new transaction end to end again (a relay stuck after
 * a fault fails here, with the replica's status and the relay's log). The loop deals at least one
 * whole deck and stops at the first fault after {@code length}. Everything random comes from the
 * seeded {@link Random}: a seed repeats the order of the faults and their particulars (not the
 * exact moments, which depend on the machine). Not thread-safe.
 */
final class FaultCampaign {
  private static final Logger LOG = LoggerFactory.getLogger(FaultCampaign.class);

  /** How long the whole chain may take to catch up after one fault. */
  static final Duration RECOVERY = Duration.ofMinutes(4);

  /**
   * One row per fault, written on the primary once it is healed: the chain must carry it to the
   * replica.
   */
  static final String MARKERS = "campaign.markers";

  private final CampaignTopology topology;
  private final Random random;
  private final CampaignReport report;

  FaultCampaign(CampaignTopology topology, Random random, CampaignReport report) {
    this.topology = topology;
    this.random = random;
    this.report = report;
  }

  /** Creates the table of {@link #MARKERS} on the primary. */
  static void createMarkers(DatabaseServer primary) {
    primary.execute(
        "CREATE DATABASE IF NOT EXISTS campaign",
        "CREATE TABLE "
            + MARKERS
            + " (id INT AUTO_INCREMENT"
            + " PRIMARY KEY, fault VARCHAR(64) NOT NULL, written TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))");
  }

  void run(Duration length) throws Exception {
    long started = System.nanoTime();
    try {
      deal(started, started + length.toNanos());
    } finally {
      report.campaignMs((System.nanoTime() - started) / 1_000_000);
    }
  }

  private void deal(long started, long end) throws Exception {
    Deque<Fault> deck = new ArrayDeque<>();
    int number = 0;
    while (number < Fault.values().length || System.nanoTime() < end) {
      if (deck.isEmpty()) {
        List<Fault> cards = new ArrayList<>(List.of(Fault.values()));
        Collections.shuffle(cards, random);
        deck.addAll(cards);
      }
      Fault fault = deck.poll();
      number++;
      quietly(1_000 + random.nextInt(5_000));
      long at = System.nanoTime();
      String detail = "(not healed)";
      try {
        detail = fault.inject(topology, random);
        long healed = System.nanoTime();
        topology
            .primary()
            .execute("INSERT INTO " + MARKERS + " (fault) VALUES ('" + number + " " + fault + "')");
        long recovery = topology.awaitReplicaHas(topology.primary().executedGtidSet(), RECOVERY);
        topology.relay().requireNoUnexpectedEnd();
        CampaignReport.Injection injection =
            new CampaignReport.Injection(
                number,
                fault,
                (at - started) / 1_000_000,
                detail,
                (healed - at) / 1_000_000,
                recovery);
        report.add(injection);
        LOG.info(
            "FAULT {} {} at {} s: {}; lasted {} ms, marker on the replica {} ms later",
            number,
            fault,
            String.format("%.1f", injection.atMs() / 1000.0),
            detail,
            injection.faultMs(),
            recovery);
      } catch (Exception | AssertionError e) {
        throw new AssertionError(
            report.title()
                + ": fault "
                + number
                + " "
                + fault
                + " at "
                + (at - started) / 1_000_000_000
                + " s ("
                + detail
                + "): "
                + e.getMessage(),
            e);
      }
    }
  }

  /** Plain load for {@code ms}, watching that the relay stays up. */
  private void quietly(long ms) throws InterruptedException {
    long until = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() < until) {
      topology.relay().requireNoUnexpectedEnd();
      // The quiet period's length is the point (plain load between faults); the relay is checked
      // every 200 ms.
      Thread.sleep(Math.min(200, Math.max(1, (until - System.nanoTime()) / 1_000_000)));
    }
  }
}
