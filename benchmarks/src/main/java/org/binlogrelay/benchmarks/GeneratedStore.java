package org.binlogrelay.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.StoreConfig;
import org.binlogrelay.storage.SyncPolicy;

/**
 * A store filled once by a {@link SyntheticPrimary} and kept under the {@link BenchDirectory} for
 * the benchmarks that only open or read stores (recovery, lookup): generating 10 GiB takes minutes,
 * opening it milliseconds. On disk:
 *
 * <pre>
 *   root/NAME/          the store: FULL_FILES complete files, then an open tail file of TAIL bytes
 *   root/NAME.saved/    generated.properties   the spec it was made from and what it holds; a store whose
 *                                              spec differs (or that was not finished) is made again
 *                       clean.meta             the tail's metadata after a clean close (checkpoint at its end)
 *                       crash.meta             the tail's metadata from CRASH_TAIL bytes earlier, the state a
 *                                              crash leaves when the last checkpoint is that far back
 * </pre>
 *
 * Opening a store rewrites the tail's metadata, so {@link #restoreTail} puts back the state to
 * measure before every open. Run {@code java -cp benchmarks.jar
 * org.binlogrelay.benchmarks.GeneratedStore NAME...} to make stores ahead of a run, or {@code
 * --delete NAME...} to remove them. Not thread-safe.
 */
final class GeneratedStore {
  private static final long MIB = 1L << 20;

  /**
   * What to generate.
   *
   * @param name directory name under the bench root
   * @param transactionBytes size of every transaction
   * @param maxFileBytes the primary's max_binlog_size
   * @param fullFiles complete files before the tail file
   * @param tailBytes how far the open tail file is filled
   * @param crashTailBytes how much of the tail comes after the checkpoint in crash.meta (0: no
   *     crash.meta)
   */
  record Spec(
      String name,
      int transactionBytes,
      long maxFileBytes,
      int fullFiles,
      long tailBytes,
      long crashTailBytes) {
    String text() {
      return String.format(
          Locale.ROOT,
          "transactions of %d bytes, files of %d bytes, %d full files, a tail of %d"
              + " bytes, %d of them after the crash checkpoint",
          transactionBytes,
          maxFileBytes,
          fullFiles,
          tailBytes,
          crashTailBytes);
    }
  }

  /**
   * 1 GiB in four closed 256 MiB files, and a 64 MiB open tail, the last 8 MiB after its last
   * checkpoint.
   */
  static final Spec RECOVERY_1G = new Spec("recovery-1g", 2048, 256 * MIB, 4, 64 * MIB, 8 * MIB);

  /** The same with 10 GiB (40 closed files) before the tail. */
  static final Spec RECOVERY_10G = new Spec("recovery-10g", 2048, 256 * MIB, 40, 64 * MIB, 8 * MIB);

  /** 1,000 files of 10 transactions of 2 KiB (999 closed and a tail of 5 transactions). */
  static final Spec LOOKUP_1000 = new Spec("lookup-1000", 2048, 10 * 2048, 999, 5 * 2048, 0);

  /** What an open of the store should find at the tail. */
  enum Tail {
    /** Closed cleanly: the checkpoint is at the end, nothing to scan. */
    CLEAN,
    /**
     * As after a crash with the last checkpoint {@link Spec#crashTailBytes} back: that much is
     * scanned.
     */
    CRASH,
    /** The tail's metadata is gone: the whole tail file is scanned to rebuild it. */
    NO_METADATA
  }

  private final Spec spec;
  private final Path dir;
  private final Path saved;
  private final Properties facts;

  private GeneratedStore(Spec spec, Path dir, Path saved, Properties facts) {
    this.spec = spec;
    this.dir = dir;
    this.saved = saved;
    this.facts = facts;
  }

  /**
   * The store for {@code spec}, generated now if it is missing, unfinished, or made from another
   * spec.
   */
  static GeneratedStore ensure(Spec spec) throws IOException {
    Path dir = BenchDirectory.root().resolve(spec.name());
    Path saved = BenchDirectory.root().resolve(spec.name() + ".saved");
    Properties facts = readFacts(saved);
    if (facts == null
        || !spec.text().equals(facts.getProperty("spec"))
        || !Files.isDirectory(dir)) {
      facts = generate(spec, dir, saved);
    }
    return new GeneratedStore(spec, dir, saved, facts);
  }

  private static Properties readFacts(Path saved) throws IOException {
    Path file = saved.resolve("generated.properties");
    if (!Files.exists(file)) {
      return null;
    }
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    }
    return p;
  }

  private static Properties generate(Spec spec, Path dir, Path saved) throws IOException {
    System.out.printf("generating %s in %s: %s%n", spec.name(), dir, spec.text());
    BenchDirectory.delete(dir);
    BenchDirectory.delete(saved);
    Files.createDirectories(dir);
    Files.createDirectories(saved);
    long started = System.nanoTime();
    SyntheticPrimary primary = new SyntheticPrimary(spec.transactionBytes(), spec.maxFileBytes());
    int tailSequence = spec.fullFiles() + 1;
    BinlogStore store = open(dir);
    try {
      store.startStream();
      primary.connect(store::append);
      fill(primary, store, tailSequence, spec.tailBytes() - spec.crashTailBytes());
      if (spec.crashTailBytes() > 0) {
        store.close();
        String tail = primary.position().file();
        Files.copy(
            dir.resolve(tail + ".meta"),
            saved.resolve("crash.meta"),
            StandardCopyOption.REPLACE_EXISTING);
        store = open(dir);
        Position resume = store.startStream().orElse(null);
        if (!primary.position().equals(resume)) {
          throw new IllegalStateException(
              "the reopened store continues at "
                  + resume
                  + ", the primary is at "
                  + primary.position());
        }
        primary.connect(store::append);
        fill(primary, store, tailSequence, spec.tailBytes());
        if (!primary.position().file().equals(tail)) {
          throw new IllegalStateException(
              "the last "
                  + spec.crashTailBytes()
                  + " bytes did not fit in "
                  + tail
                  + "; make the tail larger than the crash tail");
        }
      }
    } finally {
      store.close();
    }
    String tail = primary.position().file();
    Files.copy(
        dir.resolve(tail + ".meta"),
        saved.resolve("clean.meta"),
        StandardCopyOption.REPLACE_EXISTING);
    double seconds = (System.nanoTime() - started) / 1e9;
    Properties facts = new Properties();
    facts.setProperty("spec", spec.text());
    facts.setProperty("tail", tail);
    facts.setProperty("files", Integer.toString(primary.fileSequence()));
    facts.setProperty("bytes", Long.toString(primary.bytes()));
    facts.setProperty("transactions", Long.toString(primary.transactions()));
    facts.setProperty("seconds", String.format(Locale.ROOT, "%.1f", seconds));
    facts.setProperty(
        "writeMBps", String.format(Locale.ROOT, "%.0f", primary.bytes() / seconds / 1e6));
    try (OutputStream out = Files.newOutputStream(saved.resolve("generated.properties"))) {
      facts.store(
          out, "made by GeneratedStore; delete this directory and the store's to make it again");
    }
    System.out.printf(
        "generated %s: %d files, %d bytes, %d transactions in %.1f s (%.0f MB/s, sync off)%n",
        spec.name(),
        primary.fileSequence(),
        primary.bytes(),
        primary.transactions(),
        seconds,
        primary.bytes() / seconds / 1e6);
    return facts;
  }

  private static BinlogStore open(Path dir) throws IOException {
    return BinlogStore.open(
        StoreConfig.builder(dir, GtidFlavor.MYSQL).syncPolicy(SyncPolicy.off()).build());
  }

  /**
   * Appends until the primary is at {@code offset} or later in the file numbered {@code sequence}.
   */
  private static void fill(SyntheticPrimary primary, BinlogStore store, int sequence, long offset)
      throws IOException {
    SyntheticPrimary.Sink sink = store::append;
    long reportAt = primary.bytes() + (1L << 30);
    while (primary.fileSequence() < sequence
        || (primary.fileSequence() == sequence && primary.position().offset() < offset)) {
      primary.transaction(sink);
      if (primary.bytes() >= reportAt) {
        System.out.printf(
            "  %s: %.1f GiB%n", primary.position(), primary.bytes() / (double) (1L << 30));
        reportAt += 1L << 30;
      }
    }
  }

  Path directory() {
    return dir;
  }

  Spec spec() {
    return spec;
  }

  /** What generation recorded: files, bytes, transactions, tail, seconds, writeMBps. */
  String fact(String key) {
    return facts.getProperty(key);
  }

  /** Puts the tail's metadata in the state {@code tail} describes. */
  void restoreTail(Tail tail) throws IOException {
    Path meta = dir.resolve(facts.getProperty("tail") + ".meta");
    switch (tail) {
      case CLEAN:
        Files.copy(saved.resolve("clean.meta"), meta, StandardCopyOption.REPLACE_EXISTING);
        break;
      case CRASH:
        Path crash = saved.resolve("crash.meta");
        if (!Files.exists(crash)) {
          throw new IllegalStateException(
              spec.name() + " was generated without a crash checkpoint");
        }
        Files.copy(crash, meta, StandardCopyOption.REPLACE_EXISTING);
        break;
      default:
        Files.deleteIfExists(meta);
    }
  }

  /**
   * Drops the store's files from the page cache ({@code posix_fadvise(DONTNEED)} through {@code dd
   * iflag=nocache}), so that the next open reads them from the disk as after a reboot. Directory
   * entries and inodes stay cached; dirty pages (none once the store is closed) cannot be dropped.
   */
  void evictFromPageCache() throws IOException {
    List<String> command = new ArrayList<>();
    for (Path f : BenchDirectory.files(dir)) {
      command.clear();
      command.add("dd");
      command.add("if=" + f);
      command.add("iflag=nocache");
      command.add("count=0");
      command.add("status=none");
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      try {
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
          String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
          throw new IOException("dd could not drop " + f + " from the page cache: " + out);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        p.destroy();
        throw new IOException("interrupted while dropping " + f + " from the page cache", e);
      }
    }
  }

  /**
   * Generates (or reuses) the named stores, or deletes them: {@code GeneratedStore [--delete]
   * NAME...}, where NAME is recovery-1g, recovery-10g, lookup-1000 or all.
   */
  public static void main(String[] args) throws IOException {
    boolean delete = args.length > 0 && args[0].equals("--delete");
    List<Spec> specs = new ArrayList<>();
    for (int i = delete ? 1 : 0; i < args.length; i++) {
      specs.addAll(byName(args[i]));
    }
    if (specs.isEmpty()) {
      System.err.println(
          "usage: GeneratedStore [--delete] recovery-1g|recovery-10g|lookup-1000|all ...");
      System.exit(2);
    }
    for (Spec s : specs) {
      if (delete) {
        BenchDirectory.delete(BenchDirectory.root().resolve(s.name()));
        BenchDirectory.delete(BenchDirectory.root().resolve(s.name() + ".saved"));
        System.out.println("deleted " + s.name());
      } else {
        GeneratedStore g = ensure(s);
        System.out.printf(
            "%s: %s files, %s bytes, %s transactions (generated in %s s at %s MB/s)%n",
            s.name(),
            g.fact("files"),
            g.fact("bytes"),
            g.fact("transactions"),
            g.fact("seconds"),
            g.fact("writeMBps"));
      }
    }
  }

  private static List<Spec> byName(String name) {
    switch (name) {
      case "recovery-1g":
        return List.of(RECOVERY_1G);
      case "recovery-10g":
        return List.of(RECOVERY_10G);
      case "lookup-1000":
        return List.of(LOOKUP_1000);
      case "all":
        return List.of(RECOVERY_1G, RECOVERY_10G, LOOKUP_1000);
      default:
        throw new IllegalArgumentException(
            "no generated store named "
                + name
                + "; use recovery-1g, recovery-10g, lookup-1000 or all");
    }
  }

  static GeneratedStore byParam(String name) throws IOException {
    return ensure(byName(name).get(0));
  }
}
