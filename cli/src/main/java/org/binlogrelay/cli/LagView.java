package org.binlogrelay.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /api/v1/lag} as a table with one row per hop: the primary to the relay (how far the
 * relay's upstream is behind), then the relay to each replica (seconds and bytes behind the relay's
 * head, send rate, catch-up rate, time until caught up). Fits 80 columns for hosts up to about 15
 * characters; longer hop names are cut. Stateless.
 */
final class LagView {
  static final String UPSTREAM_HOP = "primary -> relay";

  private LagView() {}

  static Table table(JsonNode lag) {
    Table table =
        Table.of("HOP", "STATE", "LAG", "BEHIND", "SEND", "CATCH-UP", "ETA")
            .truncatable(0)
            .minimumWidth(1, "CAUGHT_UP".length())
            .minimumWidth(2, "4m12s".length())
            .minimumWidth(3, "1023 KiB".length())
            .minimumWidth(4, "512 KiB/s".length())
            .minimumWidth(5, "-512 KiB/s".length())
            .minimumWidth(6, "0:42".length());
    AdminObjects.LagObject answer = AdminObjects.of(lag, AdminObjects.LagObject.class);
    if (HumanUnits.known(answer.upstream())) {
      AdminObjects.UpstreamLagObject upstream =
          AdminObjects.of(answer.upstream(), AdminObjects.UpstreamLagObject.class);
      table.row(
          UPSTREAM_HOP,
          HumanUnits.text(upstream.state()),
          HumanUnits.seconds(upstream.secondsBehind()),
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN);
    } else {
      table.row(
          UPSTREAM_HOP,
          "NONE",
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN,
          HumanUnits.UNKNOWN);
    }
    for (AdminObjects.ReplicaObject r :
        AdminObjects.listOf(answer.replicas(), AdminObjects.ReplicaObject.class)) {
      table.row(
          hop(r),
          HumanUnits.text(r.state()),
          HumanUnits.seconds(r.secondsBehind()),
          HumanUnits.bytes(r.bytesBehind()),
          HumanUnits.rate(r.sendRateBytesPerSecond()),
          HumanUnits.rate(r.catchUpRateBytesPerSecond()),
          HumanUnits.eta(r.etaSeconds()));
    }
    return table;
  }

  /** The table, then a line when no replica is connected. */
  static List<String> lines(JsonNode lag, int width) {
    List<String> lines = new ArrayList<>(table(lag).render(width));
    if (AdminObjects.path(AdminObjects.of(lag, AdminObjects.LagObject.class).replicas())
        .isEmpty()) {
      lines.add("(no replicas connected)");
    }
    return lines;
  }

  /** A frame of {@code lag --watch}: a title line like watch(1)'s, a blank line, the table. */
  static List<String> frame(String title, String clock, List<String> body, int width) {
    List<String> frame = new ArrayList<>();
    int room = width - title.length() - clock.length();
    frame.add(room >= 2 ? title + " ".repeat(room) + clock : title);
    frame.add("");
    frame.addAll(body);
    return frame;
  }

  private static String hop(AdminObjects.ReplicaObject r) {
    String host = HumanUnits.text(r.host());
    return "relay -> "
        + HumanUnits.count(r.serverId())
        + (HumanUnits.UNKNOWN.equals(host) ? "" : " (" + host + ")");
  }
}
