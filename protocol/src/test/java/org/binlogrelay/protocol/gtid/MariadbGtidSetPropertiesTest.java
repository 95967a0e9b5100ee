package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.RandomCases.check;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MariadbGtidSetPropertiesTest {

  /**
   * A random GTID log: small ids with the 32-bit maximum sometimes, small or any 64-bit sequence
   * numbers.
   */
  private static List<MariadbGtid> log(Random r) {
    int n = r.nextInt(31);
    List<MariadbGtid> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new MariadbGtid(id(r), id(r), r.nextBoolean() ? r.nextLong(0, 31) : r.nextLong()));
    }
    return out;
  }

  private static long id(Random r) {
    return r.nextInt(6) == 0 ? 0xffff_ffffL : r.nextLong(0, 5);
  }

  @Test
  void stateTextRoundTrips() {
    check(
        "stateTextRoundTrips",
        r -> {
          MariadbGtidSet state = MariadbGtidSet.of(log(r));
          MariadbGtidSet parsed = MariadbGtidSet.parse(state.toString());
          assertThat(parsed).isEqualTo(state).hasSameHashCodeAs(state);
          assertThat(parsed.toString()).isEqualTo(state.toString());
          assertThat(MariadbGtidSet.of(state.gtids())).isEqualTo(state);
        });
  }

  @Test
  void positionTextRoundTripsAndHasOneGtidPerDomain() {
    check(
        "positionTextRoundTripsAndHasOneGtidPerDomain",
        r -> {
          MariadbGtidSet state = MariadbGtidSet.of(log(r));
          MariadbGtidSet position = MariadbGtidSet.parsePosition(state.toPositionString());
          assertThat(position.toPositionString()).isEqualTo(state.toPositionString());
          assertThat(position.gtids()).isEqualTo(state.positions());
          assertThat(state.containsAll(position)).isTrue();
        });
  }

  @Test
  void aStateHasReachedEverythingItLogged() {
    check(
        "aStateHasReachedEverythingItLogged",
        r -> {
          List<MariadbGtid> log = log(r);
          MariadbGtidSet state = MariadbGtidSet.of(log);
          for (MariadbGtid gtid : state.gtids()) {
            assertThat(state.contains(gtid)).as("%s", gtid).isTrue();
          }
          assertThat(state.containsAll(state.copy())).isTrue();
          if (!log.isEmpty()) {
            MariadbGtid last = log.get(log.size() - 1);
            assertThat(state.newest(last.domainId())).contains(last);
          }
        });
  }
}
