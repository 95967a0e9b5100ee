package org.binlogrelay.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test side: runs relayctl in this JVM as {@code main} would, with a given environment, a fake
 * terminal, a fixed clock and pauses that return at once (and are recorded); the result is the exit
 * code and both streams.
 */
final class Run {
  static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

  record Result(int code, String out, String err) {
    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private final Map<String, String> variables = new HashMap<>();
  private Terminal terminal = Terminal.fixed(false, 80);
  final List<Duration> pauses = new ArrayList<>();

  Run env(String name, String value) {
    variables.put(name, value);
    return this;
  }

  Run terminal(boolean interactive, int width) {
    terminal = Terminal.fixed(interactive, width);
    return this;
  }

  Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    Environment environment =
        new Environment(variables, terminal, Clock.fixed(NOW, ZoneOffset.UTC), pauses::add);
    int code =
        Relayctl.commandLine(new Relayctl(environment), new PrintWriter(out), new PrintWriter(err))
            .execute(args);
    return new Result(code, out.toString(), err.toString());
  }

  /** relayctl against {@code stub}: {@code --url} first, then {@code args}. */
  static Result against(StubRelay stub, String... args) {
    return new Run().on(stub, args);
  }

  Result on(StubRelay stub, String... args) {
    String[] all = new String[args.length + 2];
    all[0] = "--url";
    all[1] = stub.url();
    System.arraycopy(args, 0, all, 2, args.length);
    return run(all);
  }
}
