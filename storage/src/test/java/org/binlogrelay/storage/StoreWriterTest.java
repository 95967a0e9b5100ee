package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import org.binlogrelay.storage.StoreWriter.State;
import org.junit.jupiter.api.Test;

/**
 * {@link StoreWriter.State}: the moves a writer can make (what each move does is tested with real
 * files elsewhere).
 */
class StoreWriterTest {

  @Test
  void aWriterOnlyMovesForward() {
    assertThat(State.WRITING.canMoveTo(State.STOPPED)).isTrue();
    assertThat(State.WRITING.canMoveTo(State.RETIRED)).isTrue();
    assertThat(State.STOPPED.canMoveTo(State.RETIRED)).isTrue();
    assertThat(State.STOPPED.canMoveTo(State.STOPPED))
        .as("stopping again changes nothing")
        .isTrue();
    assertThat(State.RETIRED.canMoveTo(State.RETIRED))
        .as("a failed resumption retires it again")
        .isTrue();

    assertThat(State.WRITING.canMoveTo(State.WRITING)).isFalse();
    assertThat(State.STOPPED.canMoveTo(State.WRITING)).isFalse();
    assertThat(State.RETIRED.canMoveTo(State.WRITING)).isFalse();
    assertThat(State.RETIRED.canMoveTo(State.STOPPED)).isFalse();
  }
}
