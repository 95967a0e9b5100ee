package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import org.binlogrelay.server.serving.ReplicaStream.Phase;
import org.junit.jupiter.api.Test;

/** The serving stream's states and the moves its diagram has, and no others. */
class ReplicaStreamPhaseTest {

  private static Set<Phase> nextOf(Phase from) {
    Set<Phase> out = EnumSet.noneOf(Phase.class);
    for (Phase next : Phase.values()) {
      if (from.canMoveTo(next)) {
        out.add(next);
      }
    }
    return out;
  }

  @Test
  void movesAreThoseOfTheDiagram() {
    assertThat(nextOf(Phase.STARTING)).containsExactlyInAnyOrder(Phase.SENDING, Phase.CLOSED);
    assertThat(nextOf(Phase.SENDING)).containsExactlyInAnyOrder(Phase.CAUGHT_UP, Phase.CLOSED);
    assertThat(nextOf(Phase.CAUGHT_UP)).containsExactlyInAnyOrder(Phase.SENDING, Phase.CLOSED);
    assertThat(nextOf(Phase.CLOSED)).as("nothing leaves CLOSED").isEmpty();
  }

  @Test
  void noStateMovesToItself() {
    for (Phase p : Phase.values()) {
      assertThat(p.canMoveTo(p)).as(p.name()).isFalse();
    }
  }
}
