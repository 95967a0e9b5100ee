package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GnoIntervalListTest {

  private static GnoIntervalList of(long... pairs) {
    GnoIntervalList list = new GnoIntervalList();
    for (int i = 0; i < pairs.length; i += 2) {
      list.add(pairs[i], pairs[i + 1]);
    }
    return list;
  }

  @Test
  void appendingTheNextNumberExtendsTheLastIntervalInPlace() {
    GnoIntervalList list = new GnoIntervalList();
    for (long gno = 1; gno <= 100_000; gno++) {
      assertThat(list.add(gno)).isTrue();
    }
    assertThat(list.intervalCount()).isEqualTo(1);
    assertThat(list).hasToString("1-100000");
    assertThat(list.add(50_000)).isFalse();
  }

  @Test
  void addMergesTouchingAndOverlappingIntervals() {
    GnoIntervalList list = of(1, 3, 10, 12, 20, 22);
    assertThat(list.add(5)).isTrue();
    assertThat(list).hasToString("1-3:5:10-12:20-22");
    assertThat(list.add(4)).isTrue();
    assertThat(list).hasToString("1-5:10-12:20-22");
    assertThat(list.add(6, 19)).isTrue();
    assertThat(list).hasToString("1-22");
    assertThat(list.add(2, 22)).isFalse();
    assertThat(list.add(0 + 1, 1)).isFalse();
  }

  @Test
  void addBeforeTheFirstInterval() {
    GnoIntervalList list = of(10, 12);
    list.add(1);
    list.add(9);
    assertThat(list).hasToString("1:9-12");
  }

  @Test
  void removeSplitsTrimsAndDropsIntervals() {
    GnoIntervalList list = of(1, 10, 20, 30, 40, 50);
    assertThat(list.remove(5, 5)).isTrue();
    assertThat(list).hasToString("1-4:6-10:20-30:40-50");
    assertThat(list.remove(8, 25)).isTrue();
    assertThat(list).hasToString("1-4:6-7:26-30:40-50");
    assertThat(list.remove(11, 19)).isFalse();
    assertThat(list.remove(1, 50)).isTrue();
    assertThat(list.isEmpty()).isTrue();
  }

  @Test
  void unionSubtractIntersection() {
    GnoIntervalList a = of(1, 5, 11, 18);
    GnoIntervalList b = of(6, 10, 20, 20);
    assertThat(GnoIntervalList.union(a, b)).hasToString("1-18:20");
    assertThat(GnoIntervalList.subtract(a, of(3, 12))).hasToString("1-2:13-18");
    assertThat(GnoIntervalList.intersection(a, of(3, 12, 18, 30))).hasToString("3-5:11-12:18");
  }

  @Test
  void containsAndContainsAll() {
    GnoIntervalList a = of(1, 5, 11, 18);
    assertThat(a.contains(5)).isTrue();
    assertThat(a.contains(6)).isFalse();
    assertThat(a.contains(11)).isTrue();
    assertThat(a.containsAll(of(2, 3, 12, 18))).isTrue();
    assertThat(a.containsAll(of(2, 3, 12, 19))).isFalse();
    assertThat(a.containsAll(of(5, 11))).isFalse();
    assertThat(a.count()).isEqualTo(13);
  }

  @Test
  void bulkAddAllAndRemoveAllUseTheLinearMerge() {
    GnoIntervalList a = new GnoIntervalList();
    GnoIntervalList odds = new GnoIntervalList();
    for (long i = 1; i < 100; i += 2) {
      odds.add(i);
    }
    GnoIntervalList evens = new GnoIntervalList();
    for (long i = 2; i <= 100; i += 2) {
      evens.add(i);
    }
    a.addAll(odds);
    a.addAll(evens);
    assertThat(a).hasToString("1-100");
    a.removeAll(evens);
    assertThat(a).isEqualTo(odds);
    assertThat(a.hashCode()).isEqualTo(odds.hashCode());
  }
}
