package org.binlogrelay.protocol.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.protocol.gtid.MysqlGtid;
import org.binlogrelay.protocol.txn.MysqlTransactionBoundaries.State;
import org.binlogrelay.protocol.txn.Transaction.Ending;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MysqlTransactionBoundariesTest {

  private static StreamBuilder header() {
    return new StreamBuilder().fde("9.7.4").previousGtids();
  }

  /** Feeds every event, checking after each one that lastBoundary() only moves at boundaries. */
  private static List<Transaction<MysqlGtid>> feed(
      MysqlTransactionBoundaries tracker, StreamBuilder stream) {
    List<Transaction<MysqlGtid>> done = new ArrayList<>();
    for (StreamBuilder.Placed p : stream.events()) {
      Transaction<MysqlGtid> t = tracker.accept(p.event(), p.position());
      if (t != null) {
        done.add(t);
        assertThat(t.end()).isEqualTo(p.end());
      }
      assertThat(tracker.position()).isEqualTo(p.end());
      assertThat(tracker.lastBoundary())
          .isEqualTo(tracker.atBoundary() ? p.end() : tracker.lastBoundary());
    }
    return done;
  }

  private static List<Transaction<MysqlGtid>> run(StreamBuilder stream) {
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    List<Transaction<MysqlGtid>> done = feed(tracker, stream);
    assertThat(tracker.atBoundary()).as("stream ends at a boundary").isTrue();
    assertThat(tracker.lastBoundary()).isEqualTo(stream.position());
    return done;
  }

  private static MysqlGtid gtid(long gno) {
    return new MysqlGtid(StreamBuilder.SOURCE, gno);
  }

  @Test
  void ddlIsOneQueryAfterTheGtid() {
    StreamBuilder s = header();
    long start = s.position();
    s.gtid(1).query("CREATE TABLE t (id INT PRIMARY KEY)");
    assertThat(run(s))
        .containsExactly(new Transaction<>(gtid(1), start, s.position(), Ending.STATEMENT));
  }

  @Test
  void dmlEndsAtXidAndIsOpenUntilThen() {
    StreamBuilder s = header();
    long start = s.position();
    s.gtid(1)
        .begin()
        .tableMap()
        .rows(EventType.WRITE_ROWS)
        .tableMap()
        .rows(EventType.UPDATE_ROWS)
        .event(EventType.ROWS_QUERY, StreamBuilder.filler(9))
        .rows(EventType.PARTIAL_UPDATE_ROWS)
        .xid(9);
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    List<StreamBuilder.Placed> events = s.events();
    for (int i = 0; i < events.size() - 1; i++) {
      assertThat(tracker.accept(events.get(i).event(), events.get(i).position())).isNull();
      assertThat(tracker.atBoundary()).isEqualTo(i < 2);
    }
    assertThat(tracker.state()).isEqualTo(State.IN_TRANSACTION);
    assertThat(tracker.lastBoundary()).isEqualTo(start);
    StreamBuilder.Placed last = events.get(events.size() - 1);
    assertThat(tracker.accept(last.event(), last.position()))
        .isEqualTo(new Transaction<>(gtid(1), start, s.position(), Ending.XID));
    assertThat(tracker.atBoundary()).isTrue();
  }

  @Test
  void commitAndRollbackQueriesEndTransactions() {
    StreamBuilder s = header();
    s.gtid(1).begin().tableMap().rows(EventType.WRITE_ROWS).commit();
    s.gtid(2).begin().commit(); // an empty transaction
    s.gtid(3).begin().query("INSERT INTO m VALUES (1)").query("ROLLBACK");
    s.gtid(4).begin().query("SAVEPOINT a").query("ROLLBACK TO a").query("rollback");
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(Ending.COMMIT, Ending.COMMIT, Ending.ROLLBACK, Ending.ROLLBACK);
  }

  @Test
  void xaTransactionsAreSplitAtPrepare() {
    StreamBuilder s = header();
    s.gtid(1)
        .query("XA START X'7861',X'',1")
        .tableMap()
        .rows(EventType.WRITE_ROWS)
        .query("XA END X'7861',X'',1")
        .xaPrepare(false);
    s.gtid(2).query("XA COMMIT X'7861',X'',1");
    s.gtid(3)
        .query("XA START X'7862',X'',1")
        .tableMap()
        .rows(EventType.WRITE_ROWS)
        .query("XA END X'7862',X'',1")
        .xaPrepare(true);
    s.gtid(4).query("XA ROLLBACK X'7863',X'',1");
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(
            Ending.XA_PREPARE, Ending.XA_COMMIT, Ending.XA_COMMIT_ONE_PHASE, Ending.XA_ROLLBACK);
  }

  @Test
  void compressedTransactionIsGtidAndPayload() {
    StreamBuilder s = header();
    long start = s.position();
    s.gtid(5).payload();
    assertThat(run(s))
        .containsExactly(new Transaction<>(gtid(5), start, s.position(), Ending.PAYLOAD));
  }

  @Test
  void statementBasedContextEventsBelongToTheirStatement() {
    StreamBuilder s = header();
    s.gtid(1).intvar().userVar().query("CREATE TABLE t2 SELECT @a");
    s.gtid(2)
        .begin()
        .intvar()
        .query("INSERT INTO t VALUES (NULL)")
        .userVar()
        .event(EventType.RAND, StreamBuilder.filler(16))
        .query("INSERT INTO t VALUES (RAND())")
        .xid(3);
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(Ending.STATEMENT, Ending.XID);
  }

  @Test
  void anonymousTransactionsHaveNoGtid() {
    StreamBuilder s = header();
    s.anonymousGtid().begin().tableMap().rows(EventType.DELETE_ROWS).xid(1);
    List<Transaction<MysqlGtid>> done = run(s);
    assertThat(done).hasSize(1);
    assertThat(done.get(0).gtid()).isNull();
  }

  @Test
  void standaloneEventsMoveTheBoundary() {
    StreamBuilder s = header().heartbeat();
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    for (StreamBuilder.Placed p : s.events()) {
      tracker.accept(p.event(), p.position());
      assertThat(tracker.atBoundary()).isTrue();
      assertThat(tracker.lastBoundary()).isEqualTo(p.end());
    }
    StreamBuilder t = header().gtid(1).query("DROP TABLE t").rotate("binlog.000002");
    assertThat(run(t)).hasSize(1);
    StreamBuilder u = header().gtid(1).query("DROP TABLE t").stop();
    assertThat(run(u)).hasSize(1);
  }

  @Test
  void heartbeatsAndIgnorableEventsInsideATransactionChangeNothing() {
    StreamBuilder s = header();
    long start = s.position();
    s.gtid(1)
        .begin()
        .heartbeat()
        .event(EventType.HEARTBEAT_V2, StreamBuilder.filler(6))
        .event(99, EventHeader.LOG_EVENT_IGNORABLE_F, StreamBuilder.filler(5))
        .tableMap()
        .rows(EventType.WRITE_ROWS)
        .xid(2);
    assertThat(run(s)).containsExactly(new Transaction<>(gtid(1), start, s.position(), Ending.XID));
  }

  @Test
  void incidentIsStandaloneOrItsOwnTransaction() {
    StreamBuilder s = header().event(EventType.INCIDENT, StreamBuilder.filler(3));
    assertThat(run(s)).isEmpty();
    StreamBuilder t = header().gtid(1).event(EventType.INCIDENT, StreamBuilder.filler(3));
    assertThat(run(t)).extracting(Transaction::ending).containsExactly(Ending.INCIDENT);
  }

  @Test
  void viewChangeAfterGtidOrInsideBegin() {
    StreamBuilder s = header();
    s.gtid(1).event(EventType.VIEW_CHANGE, StreamBuilder.filler(50));
    s.gtid(2).begin().event(EventType.VIEW_CHANGE, StreamBuilder.filler(50)).commit();
    assertThat(run(s))
        .extracting(Transaction::ending)
        .containsExactly(Ending.STATEMENT, Ending.COMMIT);
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of(
            "GTID inside a transaction", (Consumer<StreamBuilder>) s -> s.gtid(1).begin().gtid(2)),
        Arguments.of("GTID after a GTID", (Consumer<StreamBuilder>) s -> s.gtid(1).gtid(2)),
        Arguments.of("XID outside a transaction", (Consumer<StreamBuilder>) s -> s.xid(1)),
        Arguments.of("XID right after the GTID", (Consumer<StreamBuilder>) s -> s.gtid(1).xid(1)),
        Arguments.of(
            "COMMIT right after the GTID", (Consumer<StreamBuilder>) s -> s.gtid(1).commit()),
        Arguments.of(
            "BEGIN inside BEGIN", (Consumer<StreamBuilder>) s -> s.gtid(1).begin().begin()),
        Arguments.of("BEGIN without GTID", (Consumer<StreamBuilder>) StreamBuilder::begin),
        Arguments.of("DDL without GTID", (Consumer<StreamBuilder>) s -> s.query("DROP TABLE t")),
        Arguments.of("rows without BEGIN", (Consumer<StreamBuilder>) s -> s.gtid(1).tableMap()),
        Arguments.of(
            "rows outside a transaction",
            (Consumer<StreamBuilder>) s -> s.rows(EventType.WRITE_ROWS)),
        Arguments.of(
            "payload inside BEGIN", (Consumer<StreamBuilder>) s -> s.gtid(1).begin().payload()),
        Arguments.of("payload without GTID", (Consumer<StreamBuilder>) StreamBuilder::payload),
        Arguments.of(
            "XA_PREPARE after the GTID", (Consumer<StreamBuilder>) s -> s.gtid(1).xaPrepare(false)),
        Arguments.of(
            "BEGIN after INTVAR", (Consumer<StreamBuilder>) s -> s.gtid(1).intvar().begin()),
        Arguments.of("INTVAR without GTID", (Consumer<StreamBuilder>) StreamBuilder::intvar),
        Arguments.of(
            "FORMAT_DESCRIPTION inside",
            (Consumer<StreamBuilder>) s -> s.gtid(1).begin().fde("9.7.4")),
        Arguments.of(
            "ROTATE inside",
            (Consumer<StreamBuilder>) s -> s.gtid(1).begin().rotate("binlog.000002")),
        Arguments.of("STOP after the GTID", (Consumer<StreamBuilder>) s -> s.gtid(1).stop()),
        Arguments.of(
            "INCIDENT inside",
            (Consumer<StreamBuilder>)
                s -> s.gtid(1).begin().event(EventType.INCIDENT, StreamBuilder.filler(3))),
        Arguments.of(
            "unknown type 99",
            (Consumer<StreamBuilder>) s -> s.event(99, 0, StreamBuilder.filler(4))),
        Arguments.of("MariaDB GTID", (Consumer<StreamBuilder>) s -> s.mariadbGtid(0, 1, 1)),
        Arguments.of(
            "obsolete v1 rows",
            (Consumer<StreamBuilder>) s -> s.gtid(1).begin().rows(EventType.WRITE_ROWS_V1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedStreamsAreRefusedAtTheOffendingEvent(String name, Consumer<StreamBuilder> body) {
    StreamBuilder s = header().gtid(100).query("CREATE DATABASE d");
    long boundary = s.position();
    body.accept(s);
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    List<StreamBuilder.Placed> events = s.events();
    for (int i = 0; i < events.size() - 1; i++) {
      tracker.accept(events.get(i).event(), events.get(i).position());
    }
    StreamBuilder.Placed bad = events.get(events.size() - 1);
    assertThatThrownBy(() -> tracker.accept(bad.event(), bad.position()))
        .isInstanceOf(ProtocolException.class)
        .hasMessageContaining("at position " + bad.position())
        .hasMessageContaining("MySQL binlog");
    assertThat(tracker.state()).isEqualTo(State.FAILED);
    assertThat(tracker.lastBoundary())
        .isLessThanOrEqualTo(bad.position())
        .isGreaterThanOrEqualTo(boundary);
    assertThatThrownBy(() -> tracker.accept(bad.event(), tracker.position()))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void errorNamesTheOpenTransaction() {
    StreamBuilder s = header();
    long start = s.position();
    s.gtid(7).begin().gtid(8);
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    List<StreamBuilder.Placed> events = s.events();
    for (int i = 0; i < events.size() - 1; i++) {
      tracker.accept(events.get(i).event(), events.get(i).position());
    }
    StreamBuilder.Placed bad = events.get(events.size() - 1);
    assertThatThrownBy(() -> tracker.accept(bad.event(), bad.position()))
        .hasMessageContaining("GTID event at position " + bad.position())
        .hasMessageContaining("inside transaction " + gtid(7) + " that starts at " + start);
  }

  @Test
  void eventsMustBeFedBackToBack() {
    StreamBuilder s = header();
    MysqlTransactionBoundaries tracker = new MysqlTransactionBoundaries(4);
    StreamBuilder.Placed second = s.events().get(1);
    assertThatThrownBy(() -> tracker.accept(second.event(), second.position()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("previous event ended at 4");
  }
}
