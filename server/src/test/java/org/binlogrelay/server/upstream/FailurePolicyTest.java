package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.SocketTimeoutException;
import org.binlogrelay.protocol.event.CorruptEventException;
import org.binlogrelay.server.upstream.FailurePolicy.FailureClass;
import org.binlogrelay.storage.ContinuityException;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreException;
import org.junit.jupiter.api.Test;

class FailurePolicyTest {
  private static PrimaryErrorException error(int code) {
    return new PrimaryErrorException("primary p", code, "HY000", "text");
  }

  @Test
  void connectionTroubleIsRetried() {
    assertThat(FailurePolicy.retry(new EOFException("closed"), 0)).isTrue();
    assertThat(FailurePolicy.retry(new SocketTimeoutException("dead"), 0)).isTrue();
    assertThat(
            FailurePolicy.retry(
                new CorruptEventException(CorruptEventException.Reason.CHECKSUM_MISMATCH, 0, "crc"),
                0))
        .isTrue();
    assertThat(FailurePolicy.retry(error(1045), 0))
        .as("access denied may be fixed by the DBA")
        .isTrue();
    assertThat(FailurePolicy.retry(error(1927), 0)).as("connection killed").isTrue();
  }

  @Test
  void whatReconnectingCannotCureStops() {
    assertThat(FailurePolicy.retry(error(1236), 0)).isFalse();
    assertThat(FailurePolicy.retry(error(1381), 0)).isFalse();
    assertThat(FailurePolicy.retry(new FatalUpstreamException("same server_id"), 0)).isFalse();
    assertThat(FailurePolicy.retry(new StoreException("store failed"), 0)).isFalse();
    assertThat(FailurePolicy.retry(new NullPointerException(), 0)).as("a bug").isFalse();
  }

  @Test
  void continuityErrorsAreRetriedUntilTheyRepeatWithoutProgress() {
    ContinuityException gap = new ContinuityException(new Position("binlog.000001", 4), "gap");
    assertThat(FailurePolicy.retry(gap, 1)).isTrue();
    assertThat(FailurePolicy.retry(gap, FailurePolicy.MAX_IDENTICAL_FAILURES - 1)).isTrue();
    assertThat(FailurePolicy.retry(gap, FailurePolicy.MAX_IDENTICAL_FAILURES)).isFalse();
  }

  @Test
  void sortsFailuresByWhatReconnectingDoes() {
    for (int code : new int[] {1040, 1053, 1152, 1159, 1317, 1927, 3169, 4031}) {
      assertThat(FailurePolicy.classify(error(code)))
          .as("error " + code)
          .isEqualTo(FailureClass.TRANSIENT);
      assertThat(FailurePolicy.retry(error(code), 1_000))
          .as("error " + code + ", many times")
          .isTrue();
    }
    for (int code : new int[] {1045, 1044, 1227, 1129, 1130, 1290}) {
      assertThat(FailurePolicy.classify(error(code)))
          .as("error " + code)
          .isEqualTo(FailureClass.DETERMINISTIC);
      assertThat(FailurePolicy.retry(error(code), FailurePolicy.MAX_IDENTICAL_FAILURES - 1))
          .isTrue();
      assertThat(FailurePolicy.retry(error(code), FailurePolicy.MAX_IDENTICAL_FAILURES)).isFalse();
    }
    assertThat(FailurePolicy.classify(new EOFException("closed")))
        .isEqualTo(FailureClass.TRANSIENT);
    assertThat(FailurePolicy.retry(new SocketTimeoutException("dead"), 1_000)).isTrue();
    assertThat(FailurePolicy.classify(new ContinuityException(null, "gap")))
        .isEqualTo(FailureClass.DETERMINISTIC);
    assertThat(
            FailurePolicy.classify(
                new CorruptEventException(
                    CorruptEventException.Reason.CHECKSUM_MISMATCH, 0, "crc")))
        .isEqualTo(FailureClass.DETERMINISTIC);
    assertThat(FailurePolicy.classify(error(1236))).isEqualTo(FailureClass.FATAL);
    assertThat(FailurePolicy.classify(new IllegalStateException("bug")))
        .isEqualTo(FailureClass.FATAL);
  }

  @Test
  void saysWhatToDo() {
    assertThat(FailurePolicy.advice(error(1045))).contains("password");
    assertThat(FailurePolicy.advice(error(1227))).contains("REPLICATION SLAVE");
    assertThat(FailurePolicy.advice(new ContinuityException(null, "gap")))
        .contains("does not continue");
    assertThat(FailurePolicy.expected(error(1045))).isTrue();
    assertThat(FailurePolicy.expected(new NullPointerException())).isFalse();
  }
}
