package org.binlogrelay.e2e.load;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What one sysbench command printed, and how long it took. */
public record SysbenchResult(List<String> command, String output, Duration elapsed) {

  private static final Pattern TRANSACTIONS = Pattern.compile("transactions:\\s+(\\d+)");

  public SysbenchResult {
    command = List.copyOf(command);
  }

  /** The committed transactions of a {@code run}, from its summary. */
  public long transactions() {
    Matcher matcher = TRANSACTIONS.matcher(output);
    if (!matcher.find()) {
      throw new IllegalStateException("No 'transactions:' line in the sysbench output:\n" + output);
    }
    return Long.parseLong(matcher.group(1));
  }
}
