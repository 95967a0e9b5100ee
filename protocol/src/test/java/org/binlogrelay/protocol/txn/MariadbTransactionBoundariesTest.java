package org.binlogrelay.protocol.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_ALLOW_PARALLEL;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_COMPLETED_XA;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_DDL;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_PREPARED_XA;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_STANDALONE;
import static org.binlogrelay.protocol.event.MariadbGtidEvent.FL_TRANSACTIONAL;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MariadbGtid;
import org.binlogrelay.protocol.txn.MariadbTransactionBoundaries.State;
import org.binlogrelay.protocol.txn.Transaction.Ending;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MariadbTransactionBoundariesTest {
  private static final int DDL = FL_STANDALONE | FL_ALLOW_PARALLEL | FL_DDL;
  private static final int TRANS = FL_TRANSACTIONAL | FL_ALLOW_PARALLEL;

  private static StreamBuilder header() {
    return new StreamBuilder().fde("10.11.19-MariaDB-log").gtidList().checkpoint();
  }

  private static List<Transaction<MariadbGtid>> run(StreamBuilder stream) {
    MariadbTransactionBoundaries tracker = new MariadbTransactionBoundaries(4);
    List<Transaction<MariadbGtid>> done = new ArrayList<>();
    for (StreamBuilder.Placed p : stream.events()) {
      Transaction<MariadbGtid> t = tracker.accept(p.event(), p.position());
      if (t != null) {
        done.add(t);
        assertThat(t.end()).isEqualTo(p.end());
        assertThat(tracker.lastBoundary()).isEqualTo(p.end());
      }
    }
    assertThat(tracker.atBoundary()).as("stream ends at a boundary").isTrue();
    assertThat(tracker.lastBoundary()).isEqualTo(stream.position());
    return done;
  }

  @Test
  void standaloneDdlIsGtidAndOneQuery() {
    StreamBuilder s = header();
    long start = s.position();
    s.mariadbGtid(0, 1, DDL).query("CREATE TABLE t (id INT)");
    assertThat(run(s))
        .containsExactly(
            new Transaction<>(new MariadbGtid(0, 1, 1), start, s.position(), Ending.STATEMENT));
  }

  @Test
  void groupImpliesBeginAndEndsAtXid() {
    StreamBuilder s = header().serverId(7);
    long start = s.position();
    s.mariadbGtid(2, 40, TRANS)
        .annotate("INSERT INTO t VALUES (1)")
        .tableMap()
        .rows(EventType.WRITE_ROWS_V1)
        .annotate("UPDATE t SET a = 2")
        .tableMap()
        .rows(EventType.UPDATE_ROWS_V1)
        .xid(5);
    MariadbTransactionBoundaries tracker = new MariadbTransactionBoundaries(4);
    List<StreamBuilder.Placed> events = s.events();
    for (int i = 0; i < events.size() - 1; i++) {
      assertThat(tracker.accept(events.get(i).event(), events.get(i).position())).isNull();
    }
    assertThat(tracker.state()).isEqualTo(State.IN_GROUP);
    assertThat(tracker.lastBoundary()).isEqualTo(start);
    StreamBuilder.Placed last = events.get(events.size() - 1);
    assertThat(tracker.accept(last.event(), last.position()))
        .as("server id comes from the GTID event's header")
        .isEqualTo(new Transaction<>(new MariadbGtid(2, 7, 40), start, s.position(), Ending.XID));
  }

  @Test
  void nonTransactionalGroupsEndAtCommitOrRollbackQueries() {
    StreamBuilder s = header();
    s.mariadbGtid(0, 1, FL_ALLOW_PARALLEL)
        .annotate("INSERT INTO m VALUES (1)")
        .tableMap()
        .rows(EventType.WRITE_ROWS_V1)
        .commit();
    s.mariadbGtid(0, 2, 0)
        .query("INSERT INTO t VALUES (1)")
        .query("INSERT INTO m VALUES (2)")
        .query("ROLLBACK");
    s.mariadbGtid(0, 3, TRANS).query("SAVEPOINT a").query("ROLLBACK TO a").xid(9);
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(Ending.COMMIT, Ending.ROLLBACK, Ending.XID);
  }

  @Test
  void xaPrepareAndCompletion() {
    StreamBuilder s = header();
    s.mariadbGtid(0, 1, FL_PREPARED_XA | TRANS)
        .annotate("INSERT INTO t VALUES (9)")
        .tableMap()
        .rows(EventType.WRITE_ROWS_V1)
        .query("XA END X'78612d31',X'',1")
        .xaPrepare(false);
    s.mariadbGtid(0, 2, FL_COMPLETED_XA | FL_STANDALONE | TRANS)
        .query("XA COMMIT X'78612d31',X'',1");
    s.mariadbGtid(0, 3, FL_PREPARED_XA | TRANS)
        .tableMap()
        .rows(EventType.WRITE_ROWS_V1)
        .query("XA END X'78612d31',X'',1")
        .xaPrepare(false);
    s.mariadbGtid(0, 4, FL_COMPLETED_XA | FL_STANDALONE | TRANS)
        .query("XA ROLLBACK X'78612d31',X'',1");
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(
            Ending.XA_PREPARE, Ending.XA_COMMIT, Ending.XA_PREPARE, Ending.XA_ROLLBACK);
  }

  @Test
  void standaloneStatementMayBePrecededByItsContext() {
    StreamBuilder s = header();
    s.mariadbGtid(0, 1, DDL).intvar().userVar().query("CREATE TABLE t2 SELECT @a");
    s.mariadbGtid(0, 2, FL_STANDALONE).event(EventType.QUERY_COMPRESSED, StreamBuilder.filler(20));
    s.mariadbGtid(0, 3, TRANS)
        .event(EventType.QUERY_COMPRESSED, StreamBuilder.filler(20))
        .tableMap()
        .rows(EventType.WRITE_ROWS_COMPRESSED_V1)
        .xid(1);
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(Ending.STATEMENT, Ending.STATEMENT, Ending.XID);
  }

  @Test
  void standaloneEventsBetweenGroupsMoveTheBoundary() {
    StreamBuilder s = header();
    s.mariadbGtid(0, 1, TRANS).tableMap().rows(EventType.DELETE_ROWS_V1).xid(1);
    s.checkpoint().heartbeat();
    s.mariadbGtid(0, 2, DDL).query("DROP TABLE t").rotate("mariadb-bin.000002");
    MariadbTransactionBoundaries tracker = new MariadbTransactionBoundaries(4);
    for (StreamBuilder.Placed p : s.events()) {
      tracker.accept(p.event(), p.position());
      if (tracker.atBoundary()) {
        assertThat(tracker.lastBoundary()).isEqualTo(p.end());
      }
    }
    assertThat(tracker.lastBoundary()).isEqualTo(s.position());
    assertThat(run(header().stop())).isEmpty();
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of(
            "GTID inside a group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, TRANS).mariadbGtid(0, 3, TRANS)),
        Arguments.of(
            "GTID after a standalone GTID",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, DDL).mariadbGtid(0, 3, DDL)),
        Arguments.of("XID without GTID", (Consumer<StreamBuilder>) s -> s.xid(1)),
        Arguments.of(
            "XID in a standalone group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, DDL).xid(1)),
        Arguments.of(
            "BEGIN query in a group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, TRANS).begin()),
        Arguments.of("BEGIN without GTID", (Consumer<StreamBuilder>) StreamBuilder::begin),
        Arguments.of(
            "COMMIT in a standalone group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, DDL).commit()),
        Arguments.of(
            "statement without GTID", (Consumer<StreamBuilder>) s -> s.query("DROP TABLE t")),
        Arguments.of(
            "rows without GTID", (Consumer<StreamBuilder>) s -> s.rows(EventType.WRITE_ROWS_V1)),
        Arguments.of(
            "XA_PREPARE in a plain group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, TRANS).xaPrepare(false)),
        Arguments.of(
            "XID ending an XA group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, FL_PREPARED_XA | TRANS).xid(1)),
        Arguments.of(
            "completed XA that is no XA COMMIT",
            (Consumer<StreamBuilder>)
                s -> s.mariadbGtid(0, 2, FL_COMPLETED_XA | FL_STANDALONE).query("DROP TABLE t")),
        Arguments.of(
            "checkpoint inside a group",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, TRANS).checkpoint()),
        Arguments.of(
            "GTID_LIST after a standalone GTID",
            (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, DDL).gtidList()),
        Arguments.of("MySQL GTID", (Consumer<StreamBuilder>) s -> s.gtid(1)),
        Arguments.of(
            "MySQL payload", (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 2, TRANS).payload()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedStreamsAreRefusedAtTheOffendingEvent(String name, Consumer<StreamBuilder> body) {
    StreamBuilder s = header().mariadbGtid(0, 1, DDL).query("CREATE DATABASE d");
    body.accept(s);
    MariadbTransactionBoundaries tracker = new MariadbTransactionBoundaries(4);
    List<StreamBuilder.Placed> events = s.events();
    for (int i = 0; i < events.size() - 1; i++) {
      tracker.accept(events.get(i).event(), events.get(i).position());
    }
    StreamBuilder.Placed bad = events.get(events.size() - 1);
    assertThatThrownBy(() -> tracker.accept(bad.event(), bad.position()))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("MariaDB binlog")
        .hasMessageContaining("at position " + bad.position());
    assertThat(tracker.state()).isEqualTo(State.FAILED);
    assertThatThrownBy(() -> tracker.accept(bad.event(), tracker.position()))
        .isInstanceOf(IllegalStateException.class);
  }
}
