package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing process with SIGKILL at random moments and checks what survives. For each fixture
 * (MySQL 9.7, MariaDB 10.11) and each sync policy, a child JVM ({@link CrashChild}) recovers the
 * store and replays the fixture's dump stream from where the store ends; the test kills it after a
 * random delay (sometimes during its own recovery), then recovers the store here and asserts:
 *
 * <ul>
 *   <li>the store is an exact prefix of the source, cut at a transaction boundary: closed files
 *       equal the fixture files byte for byte, the last file equals the fixture's first N bytes;
 *   <li>the executed GTID set is the source's set at that boundary (computed independently);
 *   <li>every position the child reported durable, and every transaction it saw acknowledged,
 *       survived.
 * </ul>
 *
 * When a child gets to the end of the stream the store must equal the fixtures exactly; it then
 * starts over from an empty directory. Scenarios run in parallel; the whole test takes well under
 * two minutes.
 */
class CrashRecoveryTest {
  private static final int KILLS_PER_SCENARIO = 10;
  private static final long BUDGET_MILLIS = 100_000;
  private static final String[] POLICIES = {
    "every-transaction", "every-3-transactions", "every-5ms", "off"
  };

  @TempDir Path dir;

  private final AtomicInteger kills = new AtomicInteger();
  private final AtomicInteger completions = new AtomicInteger();
  private final AtomicInteger killsMidTransaction = new AtomicInteger();
  private final AtomicInteger killsDuringRecovery = new AtomicInteger();
  private final AtomicInteger acksChecked = new AtomicInteger();

  @Test
  void everythingAcknowledgedSurvivesSigkillAndTheStoreStaysAPrefix() throws Exception {
    long started = System.nanoTime();
    List<Scenario> scenarios = new ArrayList<>();
    int n = 0;
    for (SourceBinlog source : SourceBinlog.all()) {
      for (String policy : POLICIES) {
        scenarios.add(new Scenario(source, policy, dir.resolve("s" + n), 1000L * n + 17));
        n++;
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> results = new ArrayList<>();
      for (Scenario s : scenarios) {
        results.add(
            pool.submit(
                () -> {
                  s.run();
                  return null;
                }));
      }
      for (Future<?> f : results) {
        f.get(BUDGET_MILLIS + 60_000, TimeUnit.MILLISECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    long tookMs = (System.nanoTime() - started) / 1_000_000;
    System.out.printf(
        "crash test: %d SIGKILLs (%d mid-transaction, %d during recovery), %d complete runs, "
            + "%d acknowledged transactions checked, %d policies x 2 flavours, %d ms%n",
        kills.get(),
        killsMidTransaction.get(),
        killsDuringRecovery.get(),
        completions.get(),
        acksChecked.get(),
        POLICIES.length,
        tookMs);
    assertThat(kills.get()).isGreaterThanOrEqualTo(50);
  }

  private final class Scenario {
    final SourceBinlog source;
    final String policy;
    final Path store;
    final Random random;

    Scenario(SourceBinlog source, String policy, Path store, long seed) {
      this.source = source;
      this.policy = policy;
      this.store = store;
      this.random = new Random(seed);
    }

    void run() throws Exception {
      int myKills = 0;
      long deadline = System.currentTimeMillis() + BUDGET_MILLIS;
      while (myKills < KILLS_PER_SCENARIO && System.currentTimeMillis() < deadline) {
        Child child = new Child(this, random.nextLong());
        boolean duringRecovery = random.nextInt(10) == 0;
        if (!duringRecovery && !child.ready.await(60, TimeUnit.SECONDS)) {
          child.process.destroyForcibly();
          throw new AssertionError(
              this + ": child never got ready:\n" + String.join("\n", child.lines));
        }
        long delayMicros = duringRecovery ? random.nextInt(400_000) : random.nextInt(150_000);
        boolean finished = child.done.await(delayMicros, TimeUnit.MICROSECONDS);
        if (!finished) {
          child.process.destroyForcibly();
          myKills++;
          kills.incrementAndGet();
          if (duringRecovery && !child.isReady()) {
            killsDuringRecovery.incrementAndGet();
          }
        }
        child.process.waitFor(30, TimeUnit.SECONDS);
        child.reader.get(30, TimeUnit.SECONDS);
        if (finished && child.process.exitValue() != 0) {
          throw new AssertionError(this + ": child failed:\n" + String.join("\n", child.lines));
        }
        boolean complete = check(child);
        if (complete) {
          completions.incrementAndGet();
          wipe();
        }
      }
      // Resume here to the end: the final files must equal the fixtures exactly.
      try (BinlogStore s =
          BinlogStore.open(
              Stores.config(store, source).syncPolicy(SyncPolicy.parse(policy)).build())) {
        Stores.appendFrom(s, source);
        assertThat(s.executedGtids()).isEqualTo(source.expectedFinalGtids());
      }
      for (String f : source.files) {
        assertThat(Files.readAllBytes(store.resolve(f)))
            .as(this + ": final " + f)
            .isEqualTo(source.bytes.get(f));
      }
    }

    /** Recovers the store after the child ended; returns true if it holds the whole source. */
    boolean check(Child child) throws IOException {
      try (BinlogStore s =
          BinlogStore.open(
              Stores.config(store, source).syncPolicy(SyncPolicy.parse(policy)).build())) {
        RecoveryReport report = s.recoveryReport();
        Position end = report.end();
        String where =
            this + " after kill (child output tail " + child.tail() + "), recovery " + report;
        if (end == null) {
          assertThat(child.acknowledged).as(where).isEmpty();
          return false;
        }
        boolean open = s.currentFile().isPresent();
        Stores.assertPrefixOfSource(store, source, end, open);
        assertThat(s.executedGtids()).as(where).isEqualTo(Stores.sourceGtidsAt(source, end));
        for (Position p : child.durable) {
          assertThat(p.compareTo(end))
              .as(where + ": durable " + p + " survived")
              .isLessThanOrEqualTo(0);
        }
        for (Position p : child.acknowledged) {
          assertThat(p.compareTo(end))
              .as(where + ": acknowledged " + p + " survived")
              .isLessThanOrEqualTo(0);
        }
        acksChecked.addAndGet(child.acknowledged.size());
        if (report.truncations().stream()
            .anyMatch(
                t ->
                    t.reason().startsWith("incomplete transaction")
                        || t.reason().startsWith("truncated event"))) {
          killsMidTransaction.incrementAndGet();
        }
        String last = source.lastFile();
        return end.equals(new Position(last, source.bytes.get(last).length));
      }
    }

    void wipe() throws IOException {
      try (Stream<Path> files = Files.list(store)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.delete(p);
        }
      }
    }

    @Override
    public String toString() {
      return source.directory + "/" + policy;
    }
  }

  /** One child process and what it said. */
  private static final class Child {
    final Process process;
    final List<String> lines = Collections.synchronizedList(new ArrayList<>());
    final List<Position> durable = Collections.synchronizedList(new ArrayList<>());
    final List<Position> acknowledged = Collections.synchronizedList(new ArrayList<>());
    final CountDownLatch ready = new CountDownLatch(1);
    final CountDownLatch done = new CountDownLatch(1);
    final CompletableFuture<Void> reader = new CompletableFuture<>();

    Child(Scenario s, long seed) throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder pb =
          new ProcessBuilder(
              java,
              "-XX:TieredStopAtLevel=1",
              "-XX:+UseSerialGC",
              "-Xshare:auto",
              "-cp",
              System.getProperty("java.class.path"),
              CrashChild.class.getName(),
              s.store.toString(),
              s.source.directory,
              s.policy,
              Long.toString(seed),
              "3000");
      pb.redirectErrorStream(true);
      // A file, not a pipe: what the child wrote before SIGKILL is all there to read afterwards.
      Path out = s.store.resolveSibling(s.store.getFileName() + "-child-" + seed + ".out");
      pb.redirectOutput(out.toFile());
      process = pb.start();
      Thread t = new Thread(() -> read(out), "crash-child-reader");
      t.setDaemon(true);
      t.start();
    }

    /** Tails the output file until the process is gone and everything it wrote is read. */
    private void read(Path out) {
      try (InputStream in = Files.newInputStream(out)) {
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (true) {
          boolean exited = !process.isAlive();
          int n = in.read(buf);
          if (n > 0) {
            for (int i = 0; i < n; i++) {
              if (buf[i] == '\n') {
                line(partial.toString(StandardCharsets.UTF_8));
                partial.reset();
              } else {
                partial.write(buf[i]);
              }
            }
          } else if (exited) {
            break;
          } else {
            // Tailing a file that another process writes: the pause between reads of it (ends when
            // it exits).
            Thread.sleep(2);
          }
        }
        reader.complete(null);
      } catch (IOException e) {
        reader.completeExceptionally(new UncheckedIOException(e));
      } catch (InterruptedException e) {
        reader.completeExceptionally(e);
      }
    }

    private void line(String line) {
      lines.add(line);
      if (line.startsWith("@@READY")) {
        ready.countDown();
      } else if (line.startsWith("@@DURABLE ")) {
        durable.add(parse(line.substring(10)));
      } else if (line.startsWith("@@ACK ")) {
        acknowledged.add(parse(line.substring(6)));
      } else if (line.equals("@@DONE")) {
        done.countDown();
      }
    }

    boolean isReady() {
      return ready.getCount() == 0;
    }

    String tail() {
      synchronized (lines) {
        return lines.subList(Math.max(0, lines.size() - 3), lines.size()).toString();
      }
    }

    static Position parse(String text) {
      int colon = text.lastIndexOf(':');
      return new Position(text.substring(0, colon), Long.parseLong(text.substring(colon + 1)));
    }
  }
}
