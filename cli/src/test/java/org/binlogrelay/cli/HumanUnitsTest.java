package org.binlogrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HumanUnitsTest {
  @Test
  void bytes() {
    assertThat(HumanUnits.bytes(0)).isEqualTo("0 B");
    assertThat(HumanUnits.bytes(1023)).isEqualTo("1023 B");
    assertThat(HumanUnits.bytes(1024)).isEqualTo("1.0 KiB");
    assertThat(HumanUnits.bytes(1258291)).isEqualTo("1.2 MiB");
    assertThat(HumanUnits.bytes(12.4 * 1024 * 1024)).isEqualTo("12 MiB");
    assertThat(HumanUnits.bytes(-524288)).isEqualTo("-512 KiB");
    assertThat(HumanUnits.bytes(5L << 40)).isEqualTo("5.0 TiB");
    assertThat(HumanUnits.rate(new DoubleNode(12582912))).isEqualTo("12 MiB/s");
    assertThat(HumanUnits.bytes(NullNode.getInstance())).isEqualTo("-");
  }

  @Test
  void seconds() {
    assertThat(HumanUnits.seconds(0)).isEqualTo("0 s");
    assertThat(HumanUnits.seconds(0.04)).isEqualTo("0.0 s");
    assertThat(HumanUnits.seconds(3.4)).isEqualTo("3.4 s");
    assertThat(HumanUnits.seconds(42.7)).isEqualTo("43 s");
    assertThat(HumanUnits.seconds(252)).isEqualTo("4m12s");
    assertThat(HumanUnits.seconds(7500)).isEqualTo("2h05m");
    assertThat(HumanUnits.seconds(273600)).isEqualTo("3d04h");
    assertThat(HumanUnits.duration(Duration.ofMillis(300))).isEqualTo("0.3 s");
  }

  @Test
  void etaAndTime() {
    assertThat(HumanUnits.eta(new DoubleNode(41.2))).isEqualTo("0:42");
    assertThat(HumanUnits.eta(new DoubleNode(723))).isEqualTo("12:03");
    assertThat(HumanUnits.eta(new DoubleNode(3723))).isEqualTo("1:02:03");
    assertThat(HumanUnits.eta(new DoubleNode(-1))).isEqualTo("-");
    assertThat(HumanUnits.eta(NullNode.getInstance())).isEqualTo("-");
    assertThat(HumanUnits.time(new TextNode("2026-11-20T09:59:59.600Z")))
        .isEqualTo("2026-11-20 09:59:59");
    assertThat(HumanUnits.time(new TextNode("yesterday"))).isEqualTo("yesterday");
  }
}
