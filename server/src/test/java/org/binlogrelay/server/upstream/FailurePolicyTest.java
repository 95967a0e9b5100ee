package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.EOFException;
import java.net.SocketTimeoutException;
import org.binlogrelay.protocol.event.CorruptEventException;
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
    assertThat(FailurePolicy.retry(new CorruptEventException(CorruptEventException.Reason.CHECKSUM_MISMATCH, 0, "crc"),
        0)).isTrue();
    assertThat(FailurePolicy.retry(error(1045), 0)).as("access denied may be fixed by the DBA").isTrue();
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
    assertThat(FailurePolicy.retry(gap, FailurePolicy.MAX_CONTINUITY_FAILURES - 1)).isTrue();
    assertThat(FailurePolicy.retry(gap, FailurePolicy.MAX_CONTINUITY_FAILURES)).isFalse();
  }
}
