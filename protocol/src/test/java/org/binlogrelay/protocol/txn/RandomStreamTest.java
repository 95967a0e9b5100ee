package org.binlogrelay.protocol.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_COMPLETED_XA;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_PREPARED_XA;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_STANDALONE;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_TRANSACTIONAL;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.function.LongFunction;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.txn.Transaction.Ending;
import org.junit.jupiter.api.Test;

/**
 * Random streams of well-formed transactions and standalone events, whose boundaries are known from
 * how they were built: the tracker must find exactly those transactions, and after every prefix of
 * events its last boundary must be the largest known boundary within the prefix.
 */
class RandomStreamTest {
  private static final int STREAMS = 300;

  /** A stream and what the tracker must find in it. */
  private record Generated<G>(
      StreamBuilder stream, List<Transaction<G>> transactions, TreeSet<Long> boundaries) {}

  @Test
  void mysqlStreams() {
    for (int seed = 0; seed < STREAMS; seed++) {
      check(mysql(new Random(seed)), MysqlTransactionBoundaries::new, seed);
    }
  }

  @Test
  void mariadbStreams() {
    for (int seed = 0; seed < STREAMS; seed++) {
      check(mariadb(new Random(seed)), MariadbTransactionBoundaries::new, seed);
    }
  }

  private static <G> void check(
      Generated<G> g, LongFunction<TransactionBoundaries<G>> trackers, int seed) {
    TransactionBoundaries<G> tracker = trackers.apply(4);
    List<Transaction<G>> found = new ArrayList<>();
    for (StreamBuilder.Placed p : g.stream().events()) {
      Transaction<G> t = tracker.accept(p.event(), p.position());
      if (t != null) {
        found.add(t);
      }
      long expected = g.boundaries().floor(p.end());
      assertThat(tracker.lastBoundary())
          .as("seed %d, after the event at %d", seed, p.position())
          .isEqualTo(expected);
      assertThat(tracker.atBoundary()).isEqualTo(expected == p.end());
    }
    assertThat(found).as("seed %d", seed).containsExactlyElementsOf(g.transactions());
  }

  private static Generated<MysqlGtid> mysql(Random random) {
    StreamBuilder s = new StreamBuilder().fde("9.7.4").previousGtids();
    List<Transaction<MysqlGtid>> expected = new ArrayList<>();
    TreeSet<Long> boundaries = new TreeSet<>(List.of(4L, s.events().get(0).end(), s.position()));
    int count = random.nextInt(30);
    for (long gno = 1; gno <= count; gno++) {
      long start = s.position();
      s.gtid(gno);
      Ending ending;
      switch (random.nextInt(7)) {
        case 0 -> {
          s.query("CREATE TABLE t" + gno + " (id INT)");
          ending = Ending.STATEMENT;
        }
        case 1 -> {
          s.payload();
          ending = Ending.PAYLOAD;
        }
        case 2 -> {
          boolean onePhase = random.nextBoolean();
          s.query("XA START X'01',X'',1");
          rows(s, random, EventType.WRITE_ROWS);
          s.query("XA END X'01',X'',1").xaPrepare(onePhase);
          ending = onePhase ? Ending.XA_COMMIT_ONE_PHASE : Ending.XA_PREPARE;
        }
        case 3 -> {
          boolean commit = random.nextBoolean();
          s.query(commit ? "XA COMMIT X'01',X'',1" : "XA ROLLBACK X'01',X'',1");
          ending = commit ? Ending.XA_COMMIT : Ending.XA_ROLLBACK;
        }
        case 4 -> {
          s.intvar().query("INSERT INTO t VALUES (NULL)");
          ending = Ending.STATEMENT;
        }
        default -> {
          s.begin();
          rows(s, random, EventType.UPDATE_ROWS);
          int end = random.nextInt(3);
          if (end == 0) {
            s.xid(gno);
          } else {
            s.query(end == 1 ? "COMMIT" : "ROLLBACK");
          }
          ending = end == 0 ? Ending.XID : end == 1 ? Ending.COMMIT : Ending.ROLLBACK;
        }
      }
      expected.add(
          new Transaction<>(new MysqlGtid(StreamBuilder.SOURCE, gno), start, s.position(), ending));
      boundaries.add(s.position());
      standalone(s, random, boundaries, false);
    }
    return new Generated<>(s, expected, boundaries);
  }

  private static Generated<MariadbGtid> mariadb(Random random) {
    StreamBuilder s = new StreamBuilder().fde("10.11.19-MariaDB-log").gtidList().checkpoint();
    List<Transaction<MariadbGtid>> expected = new ArrayList<>();
    TreeSet<Long> boundaries =
        new TreeSet<>(List.of(4L, s.events().get(0).end(), s.events().get(1).end(), s.position()));
    int count = random.nextInt(30);
    for (long seq = 1; seq <= count; seq++) {
      long start = s.position();
      long domain = random.nextInt(3);
      long server = 1L + random.nextInt(2);
      s.serverId(server);
      Ending ending;
      switch (random.nextInt(6)) {
        case 0 -> {
          s.mariadbGtid(domain, seq, FL_STANDALONE).query("CREATE TABLE t" + seq + " (id INT)");
          ending = Ending.STATEMENT;
        }
        case 1 -> {
          s.mariadbGtid(domain, seq, FL_PREPARED_XA | FL_TRANSACTIONAL)
              .annotate("INSERT INTO t VALUES (1)");
          rows(s, random, EventType.WRITE_ROWS_V1);
          s.query("XA END X'01',X'',1").xaPrepare(false);
          ending = Ending.XA_PREPARE;
        }
        case 2 -> {
          boolean commit = random.nextBoolean();
          s.mariadbGtid(domain, seq, FL_COMPLETED_XA | FL_STANDALONE)
              .query(commit ? "XA COMMIT X'01',X'',1" : "XA ROLLBACK X'01',X'',1");
          ending = commit ? Ending.XA_COMMIT : Ending.XA_ROLLBACK;
        }
        case 3 -> {
          s.mariadbGtid(domain, seq, 0).annotate("INSERT INTO m VALUES (1)");
          rows(s, random, EventType.WRITE_ROWS_V1);
          boolean commit = random.nextBoolean();
          s.query(commit ? "COMMIT" : "ROLLBACK");
          ending = commit ? Ending.COMMIT : Ending.ROLLBACK;
        }
        default -> {
          s.mariadbGtid(domain, seq, FL_TRANSACTIONAL).annotate("UPDATE t SET a = 1");
          rows(s, random, EventType.UPDATE_ROWS_V1);
          s.xid(seq);
          ending = Ending.XID;
        }
      }
      expected.add(
          new Transaction<>(new MariadbGtid(domain, server, seq), start, s.position(), ending));
      boundaries.add(s.position());
      standalone(s, random, boundaries, true);
    }
    return new Generated<>(s, expected, boundaries);
  }

  private static void rows(StreamBuilder s, Random random, EventType type) {
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      s.tableMap().rows(type);
      if (random.nextInt(8) == 0) {
        s.heartbeat(); // tolerated inside a transaction, changes nothing
      }
    }
  }

  /** Sometimes a standalone event between transactions; each is a boundary of its own. */
  private static void standalone(
      StreamBuilder s, Random random, TreeSet<Long> boundaries, boolean mariadb) {
    if (random.nextInt(5) != 0) {
      return;
    }
    if (mariadb && random.nextBoolean()) {
      s.checkpoint();
    } else {
      s.heartbeat();
    }
    boundaries.add(s.position());
  }
}
