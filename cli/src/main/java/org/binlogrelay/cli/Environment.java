package org.binlogrelay.cli;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * What relayctl takes from outside its command line: environment variables, the terminal it draws
 * on, the clock, and a way to wait. Tests pass their own; {@link #system()} is the real one.
 * Immutable.
 */
public record Environment(
    Map<String, String> variables, Terminal terminal, Clock clock, Pause pause) {

  /** Waits between refreshes of {@code lag --watch}. */
  @FunctionalInterface
  public interface Pause {
    void sleep(Duration duration) throws InterruptedException;
  }

  public static Environment system() {
    return new Environment(
        System.getenv(), Terminal.system(), Clock.systemUTC(), d -> Thread.sleep(d.toMillis()));
  }

  String variable(String name) {
    return variables.get(name);
  }
}
