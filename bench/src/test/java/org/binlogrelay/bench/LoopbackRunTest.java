package org.binlogrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class LoopbackRunTest {
  @TempDir Path dir;

  @Test
  void sendsEveryByteOfTheFilesInOrder() throws Exception {
    Path a = file("binlog.000001", 3_000_001);
    Path b = file("binlog.000002", 17);
    BenchCommand bench = new BenchCommand();
    StringWriter out = new StringWriter();
    CommandLine line = BenchCommand.commandLine(bench);
    line.setOut(new PrintWriter(out));
    int code = line.execute("loopback", "--json", "--buffer", "65536", a.toString(), b.toString());
    assertThat(code).isZero();
    assertThat(bench.report().value("event_bytes")).isEqualTo(3_000_018L);
    assertThat(bench.report().value("files")).isEqualTo(2);
    assertThat(out.toString()).startsWith("{\"benchmark\":\"loopback\"").contains("\"mb_per_s\":");
  }

  @Test
  void aMissingFileIsAClearError() {
    StringWriter err = new StringWriter();
    CommandLine line = BenchCommand.commandLine();
    line.setErr(new PrintWriter(err));
    int code = line.execute("loopback", dir.resolve("absent").toString());
    assertThat(code).isEqualTo(1);
    assertThat(err.toString()).contains("relay-bench: not a regular file: ").contains("absent");
  }

  @Test
  void isHiddenFromTheUsage() {
    assertThat(BenchCommand.commandLine().getUsageMessage()).doesNotContain("loopback");
  }

  private Path file(String name, int size) throws Exception {
    byte[] bytes = new byte[size];
    new Random(size).nextBytes(bytes);
    return Files.write(dir.resolve(name), bytes);
  }
}
