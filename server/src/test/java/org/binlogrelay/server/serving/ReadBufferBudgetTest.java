package org.binlogrelay.server.serving;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReadBufferBudgetTest {
  private static final int FULL = 256 << 10;

  @Test
  void fullBuffersWhileTheBudgetLastsThenSmallerOnesDownToTheFloor() {
    ReadBufferBudget budget = new ReadBufferBudget(4L * FULL + 100_000);
    for (int i = 0; i < 4; i++) {
      assertThat(budget.take(FULL)).isEqualTo(FULL);
    }
    assertThat(budget.take(FULL)).as("what is left, in 4 KiB units").isEqualTo(98_304);
    assertThat(budget.take(FULL))
        .as("past the budget: the floor, so that every dump still progresses")
        .isEqualTo(ReadBufferBudget.MIN_BYTES);
    assertThat(budget.take(4096)).as("a wish below the floor").isEqualTo(4096);
    assertThat(budget.taken()).isEqualTo(4L * FULL + 98_304 + ReadBufferBudget.MIN_BYTES + 4096);

    budget.giveBack(FULL);
    budget.giveBack(FULL);
    assertThat(budget.take(FULL)).as("given back, full size again").isEqualTo(FULL);
  }

  @Test
  void everythingGivenBackLeavesNothingTaken() {
    ReadBufferBudget budget = new ReadBufferBudget(FULL);
    int a = budget.take(FULL);
    int b = budget.take(FULL);
    budget.giveBack(a);
    budget.giveBack(b);
    assertThat(budget.taken()).isZero();
  }

  @Test
  void theSharedBudgetIsAQuarterOfTheDirectMemory() {
    assertThat(ReadBufferBudget.SHARED.budgetBytes())
        .isEqualTo(
            Math.max(
                ReadBufferBudget.MIN_BYTES,
                io.netty.util.internal.PlatformDependent.maxDirectMemory() / 4));
    assertThatThrownBy(() -> new ReadBufferBudget(1000))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
