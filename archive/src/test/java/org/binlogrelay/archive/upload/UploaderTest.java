package org.binlogrelay.archive.upload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.archive.ArchivedFileRecord;
import org.binlogrelay.archive.objectstore.ObjectStoreException.Kind;
import org.binlogrelay.archive.upload.DirectoryObjectStore.Op;
import org.binlogrelay.archive.upload.UploadState.Phase;
import org.binlogrelay.archive.upload.UploadStep.StepHook;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Time;
import org.binlogrelay.storage.testing.ManualTime;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The uploader against a real store (the MySQL fixture's three files, all closed) and a
 * directory-backed object store with fault injection. Files 1 and 2 (4,274 and 2,862 bytes) go up
 * in one PUT, file 3 (206,840 bytes) in parts of 16 KiB (13 parts) or 64 KiB (4 parts). After every
 * scenario: each data and metadata object was written exactly once and holds the local bytes, and
 * no multipart upload is left.
 */
class UploaderTest {
  private static final String PREFIX = "relay/";
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final List<Uploader> uploaders = new ArrayList<>();
  private final List<BinlogStore> stores = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    uploaders.forEach(u -> u.stop(Duration.ofSeconds(10)));
    for (BinlogStore s : stores) {
      s.close();
    }
  }

  static UploadConfig config(long threshold) {
    return UploadConfig.defaults(PREFIX, "1@relay-a")
        .withMultipartThreshold(threshold)
        .withBackoff(Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofMillis(50));
  }

  @Test
  void archivesEveryClosedFileOnceInOrder() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    List<String> heard = Collections.synchronizedList(new ArrayList<>());
    Uploader uploader = uploader(store, objects, config(64 << 10), Time.SYSTEM, StepHook.NONE);
    uploader.addListener((record, sent) -> heard.add(record.name() + (sent ? " sent" : " found")));
    uploader.start();
    awaitArchived(uploader, ClosedBinlogs.NAMES);

    assertArchivedOnce(store, objects);
    assertThat(heard)
        .containsExactly("binlog.000001 sent", "binlog.000002 sent", "binlog.000003 sent");
    ArchivedFileRecord third = record(objects, "binlog.000003");
    assertThat(third.objectEtag()).endsWith("-4");
    assertThat(third.parts()).isEqualTo(4);
    assertThat(third.partSize()).isEqualTo(64 << 10);
    assertThat(third.file()).isEqualTo(store.file("binlog.000003").orElseThrow());
    assertThat(third.uploadedBy()).isEqualTo("1@relay-a");
    assertThat(record(objects, "binlog.000001").parts()).isZero();
    long bytes = ClosedBinlogs.closed(store).stream().mapToLong(FileMetadata::size).sum();
    UploadCounters c = uploader.counters();
    eventually(WAIT, "pending 0", () -> c.pendingFiles() == 0);
    assertThat(c.uploadedFiles()).isEqualTo(3);
    assertThat(c.uploadedBytes()).isEqualTo(bytes);
    assertThat(c.pendingBytes()).isZero();
    assertThat(c.oldestPendingAgeSeconds(System.currentTimeMillis())).isZero();
    assertThat(c.lastUploadNanos()).isPositive();
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.OK);
    assertThat(uploader.gate().enabled()).isTrue();
    assertThat(uploader.gate().archived("binlog.000004")).isFalse();

    // Retention removes archived files: their state files go too, the newest stays.
    store.removeFilesBefore("binlog.000003");
    Path states = Uploader.stateDirectory(store.directory());
    eventually(
        WAIT,
        "state files of removed files pruned",
        () -> !Files.exists(UploadState.path(states, "binlog.000001")));
    assertThat(Files.exists(UploadState.path(states, "binlog.000003"))).isTrue();
    assertThat(uploader.stop(Duration.ofSeconds(10))).isTrue();
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.STOPPED);
  }

  /**
   * The uploader "crashes" (its thread dies) at the {@code occurrence}-th time it reaches {@code
   * step}; a new uploader on the same directories finishes without writing any object twice.
   */
  @ParameterizedTest(name = "{0} #{1}")
  @CsvSource({
    "DIGESTED, 1",
    "DIGESTED, 3",
    "OBJECT_WRITTEN, 1",
    "UPLOADED_PERSISTED, 1",
    "META_WRITTEN, 1",
    "VERIFIED_PERSISTED, 1",
    "MULTIPART_CREATED, 1",
    "UPLOADING_PERSISTED, 1",
    "PART_SENT, 1",
    "PART_SENT, 5",
    "PART_PERSISTED, 5",
    "PART_PERSISTED, 13",
    "OBJECT_WRITTEN, 3",
    "UPLOADED_PERSISTED, 3",
    "META_WRITTEN, 3",
    "VERIFIED_PERSISTED, 3"
  })
  void resumesAfterACrashAtEachStep(UploadStep step, int occurrence) throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    CountDownLatch crashed = new CountDownLatch(1);
    AtomicInteger seen = new AtomicInteger();
    StepHook crash =
        (name, s) -> {
          if (s == step && seen.incrementAndGet() == occurrence) {
            crashed.countDown();
            throw new SimulatedCrash(name + " at " + s);
          }
        };
    Uploader first = uploader(store, objects, config(16 << 10), Time.SYSTEM, crash);
    first.start();
    assertThat(crashed.await(60, TimeUnit.SECONDS)).as("reached %s #%d", step, occurrence).isTrue();
    assertThat(first.stop(Duration.ofSeconds(10))).isTrue();

    int partsBefore = objects.calls(Op.UPLOAD_PART);
    Uploader second = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    second.start();
    awaitArchived(second, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(objects.calls(Op.UPLOAD_PART))
        .as("13 parts in all, a part sent but not persisted once more")
        .isEqualTo(step == UploadStep.PART_SENT ? 14 : 13);
    assertThat(partsBefore).isLessThanOrEqualTo(13);
  }

  @Test
  void aCleanStopFinishesTheCurrentPartAndTheNextStartResumesFromIt() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    CountDownLatch atThirdPart = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger parts = new AtomicInteger();
    StepHook hold =
        (name, s) -> {
          if (s == UploadStep.PART_SENT && parts.incrementAndGet() == 3) {
            atThirdPart.countDown();
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    Uploader first = uploader(store, objects, config(16 << 10), Time.SYSTEM, hold);
    first.start();
    assertThat(atThirdPart.await(60, TimeUnit.SECONDS)).isTrue();
    Thread stopper = new Thread(() -> first.stop(Duration.ofSeconds(30)));
    stopper.start();
    eventually(
        WAIT,
        "stop() waiting for the thread",
        () -> stopper.getState() == Thread.State.TIMED_WAITING);
    release.countDown();
    stopper.join(60_000);
    UploadState state =
        UploadState.read(Uploader.stateDirectory(store.directory()), "binlog.000003");
    assertThat(state.phase()).isEqualTo(Phase.UPLOADING);
    assertThat(state.parts()).hasSize(3);

    Uploader second = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    second.start();
    awaitArchived(second, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(objects.calls(Op.UPLOAD_PART)).isEqualTo(13);
  }

  @Test
  void anotherRelaysIdenticalUploadIsTakenWithoutSendingBytes() throws Exception {
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    BinlogStore b = store("b");
    Uploader relayB =
        uploader(
            b,
            objects,
            UploadConfig.defaults(PREFIX, "2@relay-b").withMultipartThreshold(64 << 10),
            Time.SYSTEM,
            StepHook.NONE);
    relayB.start();
    awaitArchived(relayB, ClosedBinlogs.NAMES);
    relayB.stop(Duration.ofSeconds(10));

    BinlogStore a = store("a");
    List<Boolean> sent = Collections.synchronizedList(new ArrayList<>());
    Uploader relayA = uploader(a, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    relayA.addListener((record, bytesSent) -> sent.add(bytesSent));
    relayA.start();
    awaitArchived(relayA, ClosedBinlogs.NAMES);
    assertArchivedOnce(a, objects);
    assertThat(sent).containsExactly(false, false, false);
    assertThat(relayA.counters().alreadyArchivedFiles()).isEqualTo(3);
    assertThat(relayA.counters().uploadedFiles()).isZero();
    assertThat(objects.calls(Op.UPLOAD_PART)).isEqualTo(4); // relay B's 64 KiB parts only
    UploadState state = UploadState.read(Uploader.stateDirectory(a.directory()), "binlog.000002");
    assertThat(state.uploadedBy()).isEqualTo("2@relay-b");
  }

  @Test
  void aRelayWithAnUploadDelayWaitsThenFindsTheOtherRelaysUpload() throws Exception {
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    BinlogStore b = store("b");
    List<FileMetadata> files = ClosedBinlogs.closed(b);
    long firstClosed = files.stream().mapToLong(FileMetadata::lastEventTime).min().orElseThrow();
    long lastClosed = files.stream().mapToLong(FileMetadata::lastEventTime).max().orElseThrow();
    ManualTime time = new ManualTime(firstClosed * 1000);
    Uploader delayed =
        uploader(
            b,
            objects,
            UploadConfig.defaults(PREFIX, "2@relay-b")
                .withMultipartThreshold(64 << 10)
                .withUploadDelay(Duration.ofMinutes(2)),
            time,
            StepHook.NONE);
    delayed.start();
    assertThat(time.nextWait(WAIT))
        .as("min(delay left, idle check)")
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(objects.calls(Op.HEAD)).isZero();

    BinlogStore a = store("a");
    Uploader first = uploader(a, objects, config(64 << 10), Time.SYSTEM, StepHook.NONE);
    first.start();
    awaitArchived(first, ClosedBinlogs.NAMES);

    time.advance(Duration.ofMinutes(2).plusSeconds(lastClosed - firstClosed));
    awaitArchived(delayed, ClosedBinlogs.NAMES);
    assertArchivedOnce(b, objects);
    assertThat(delayed.counters().alreadyArchivedFiles()).isEqualTo(3);
    assertThat(delayed.counters().uploadedFiles()).isZero();
  }

  @Test
  void otherBytesUnderTheSameNameStopArchivingWithAConflict() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    FileMetadata second = store.file("binlog.000002").orElseThrow();
    ArchivedFileRecord other =
        new ArchivedFileRecord(
            second,
            "00".repeat(32),
            ArchivedFileRecord.IDENTITY,
            second.size(),
            "0123456789abcdef0123456789abcdef",
            0,
            0,
            Instant.parse("2026-11-27T00:00:00Z"),
            "7@relay-x");
    String metaKey = ArchivedFileRecord.metaKey(PREFIX, "binlog.000002");
    objects.plant(metaKey, other.encode());

    Uploader uploader = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    uploader.start();
    eventually(WAIT, "conflict", () -> uploader.status().state() == UploadStatus.State.CONFLICT);
    UploadStatus status = uploader.status();
    assertThat(status.currentFile()).isEqualTo("binlog.000002");
    assertThat(status.lastError())
        .contains(metaKey + " describes other bytes under the same name")
        .contains("uploaded by 7@relay-x")
        .contains("Give each its own prefix");
    assertThat(status.advice()).contains("its own archive prefix");
    assertThat(uploader.gate().archived("binlog.000001")).isTrue();
    assertThat(uploader.gate().archived("binlog.000002")).isFalse();
    assertThat(objects.head(ArchivedFileRecord.dataKey(PREFIX, "binlog.000003"))).isEmpty();
    assertThat(objects.bytes(metaKey)).isEqualTo(other.encode());
    uploader.stop(Duration.ofSeconds(10));

    Uploader restarted = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    restarted.start();
    eventually(
        WAIT, "conflict again", () -> restarted.status().state() == UploadStatus.State.CONFLICT);
    assertThat(restarted.counters().pendingFiles()).isEqualTo(2);
    assertThat(objects.head(ArchivedFileRecord.dataKey(PREFIX, "binlog.000003"))).isEmpty();
  }

  @Test
  void retryableFailuresAndLostAnswersEndWithOneWritePerKey() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    objects
        .failOn(Op.PUT, 1, Kind.SERVER_ERROR, false)
        .failOn(Op.PUT, 2, Kind.TIMEOUT, true)
        .failOn(Op.HEAD, 6, Kind.UNREACHABLE, false)
        .failOn(Op.UPLOAD_PART, 2, Kind.CHECKSUM, false)
        .failOn(Op.UPLOAD_PART, 5, Kind.TIMEOUT, true)
        .failOn(Op.COMPLETE, 1, Kind.TIMEOUT, true)
        .failOn(Op.PUT, 6, Kind.SERVER_ERROR, true);
    Uploader uploader = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    uploader.start();
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    UploadCounters c = uploader.counters();
    assertThat(c.failures(FailureKind.SERVER_ERROR)).isEqualTo(2);
    assertThat(c.failures(FailureKind.TIMEOUT)).isEqualTo(3);
    assertThat(c.failures(FailureKind.UNREACHABLE)).isEqualTo(1);
    assertThat(c.failures(FailureKind.CHECKSUM)).isEqualTo(1);
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.OK);
    assertThat(uploader.status().lastError()).isNull();
  }

  @Test
  void filesClosedWhileTheArchiveIsDownAreArchivedWhenItComesBack() throws Exception {
    BinlogStore store = ClosedBinlogs.open(tmp.resolve("a"));
    stores.add(store);
    DirectoryObjectStore objects =
        new DirectoryObjectStore(tmp.resolve("s3")).down(Kind.UNREACHABLE);
    Uploader uploader = uploader(store, objects, config(16 << 10), Time.SYSTEM, StepHook.NONE);
    uploader.start();
    ClosedBinlogs.ingest(store, 0, 1);
    ClosedBinlogs.ingest(store, 1, 3); // appends return: the listener only wakes the uploader
    ClosedBinlogs.settle(store);
    UploadCounters c = uploader.counters();
    eventually(WAIT, "3 files pending", () -> c.pendingFiles() == 3);
    eventually(WAIT, "retrying", () -> uploader.status().state() == UploadStatus.State.RETRYING);
    assertThat(uploader.status().lastFailureKind()).isEqualTo(FailureKind.UNREACHABLE);
    assertThat(uploader.status().advice()).contains("uploads resume by themselves");
    assertThat(c.pendingBytes())
        .isEqualTo(ClosedBinlogs.closed(store).stream().mapToLong(FileMetadata::size).sum());
    assertThat(uploader.gate().archived("binlog.000001")).isFalse();

    objects.down(null);
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    eventually(WAIT, "nothing pending", () -> c.pendingFiles() == 0);
  }

  @Test
  void filesClosedDuringALongBackOffCountAsPendingAtOnce() throws Exception {
    BinlogStore store = ClosedBinlogs.open(tmp.resolve("a"));
    stores.add(store);
    DirectoryObjectStore objects =
        new DirectoryObjectStore(tmp.resolve("s3")).down(Kind.UNREACHABLE);
    // a back-off far longer than the test: the counters must not wait for the next attempt
    UploadConfig config =
        config(16 << 10)
            .withBackoff(Duration.ofMinutes(30), Duration.ofMinutes(30), Duration.ofMinutes(30));
    Uploader uploader = uploader(store, objects, config, Time.SYSTEM, StepHook.NONE);
    uploader.start();
    ClosedBinlogs.ingest(store, 0, 1);
    ClosedBinlogs.settle(store);
    UploadCounters c = uploader.counters();
    eventually(WAIT, "retrying", () -> uploader.status().state() == UploadStatus.State.RETRYING);
    long failures = c.failures(FailureKind.UNREACHABLE);
    ClosedBinlogs.ingest(store, 1, 3);
    ClosedBinlogs.settle(store);
    eventually(WAIT, "3 files pending during the back-off", () -> c.pendingFiles() == 3);
    assertThat(c.pendingBytes())
        .isEqualTo(ClosedBinlogs.closed(store).stream().mapToLong(FileMetadata::size).sum());
    assertThat(c.failures(FailureKind.UNREACHABLE))
        .as("no attempt before the back-off ends")
        .isEqualTo(failures);
  }

  @Test
  void accessDeniedIsReportedWithAdviceAndRetriedSlowly() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects =
        new DirectoryObjectStore(tmp.resolve("s3")).down(Kind.ACCESS_DENIED);
    ManualTime time = new ManualTime(1_795_400_000_000L);
    UploadConfig config =
        config(16 << 10)
            .withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofMinutes(5));
    Uploader uploader = uploader(store, objects, config, time, () -> 0.5, StepHook.NONE);
    uploader.start();
    assertThat(time.nextWait(WAIT)).isEqualTo(Duration.ofMinutes(5));
    UploadStatus status = uploader.status();
    assertThat(status.state()).isEqualTo(UploadStatus.State.FAILING);
    assertThat(status.lastFailureKind()).isEqualTo(FailureKind.ACCESS_DENIED);
    assertThat(status.advice()).contains("s3:PutObject");
    assertThat(status.nextAttempt()).isEqualTo(status.lastErrorAt().plus(Duration.ofMinutes(5)));
    assertThat(uploader.counters().oldestPendingAgeSeconds(time.milliseconds()))
        .isEqualTo(1_795_400_000L - store.file("binlog.000001").orElseThrow().lastEventTime());

    // Then the network fails: retryable, 1 s doubling to 60 s (x0.75 with this jitter).
    objects.down(Kind.UNREACHABLE);
    time.advance(Duration.ofMinutes(5));
    List<Duration> waits = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      Duration d = time.nextWait(WAIT);
      waits.add(d);
      time.advance(d);
    }
    assertThat(waits)
        .containsExactly(
            Duration.ofMillis(750),
            Duration.ofMillis(1500),
            Duration.ofSeconds(3),
            Duration.ofSeconds(6),
            Duration.ofSeconds(12),
            Duration.ofSeconds(24),
            Duration.ofSeconds(45),
            Duration.ofSeconds(45));
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.RETRYING);

    Duration ninth = time.nextWait(WAIT);
    objects.down(null);
    time.advance(ninth);
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
  }

  @Test
  void opaqueEtagsAreVerifiedByReadingTheObjectBack() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3")).opaqueEtags(true);
    Uploader uploader = uploader(store, objects, config(64 << 10), Time.SYSTEM, StepHook.NONE);
    uploader.start();
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(objects.calls(Op.GET)).isEqualTo(3);
  }

  @Test
  void readBackModeReadsEveryObjectBack() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    Uploader uploader =
        uploader(
            store,
            objects,
            config(64 << 10).withVerify(UploadConfig.Verify.READ_BACK, true),
            Time.SYSTEM,
            StepHook.NONE);
    uploader.start();
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(objects.calls(Op.GET)).isEqualTo(3);
  }

  /** A crash of the uploader's thread, thrown by a test hook. */
  static final class SimulatedCrash extends Error {
    private static final long serialVersionUID = 1L;

    SimulatedCrash(String where) {
      super("simulated crash " + where);
    }
  }

  /**
   * With {@code maxUploadRate}, every byte the uploader sends (data objects, parts and metadata
   * objects) is paced on its clock: on a manual clock moved only by the limiter's own waits, they
   * add up to the bytes sent at the rate, less the 100 ms burst of the full bucket at the start.
   */
  @Test
  void aMaxUploadRatePacesEveryByteSent() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    ManualTime time = new ManualTime(1_795_400_000_000L);
    UploadConfig config = config(64 << 10).withMaxUploadRate(100_000);
    Uploader uploader = uploader(store, objects, config, time, StepHook.NONE);
    uploader.start();
    long pacedNanos = 0;
    while (true) {
      Duration wait = time.nextWait(WAIT);
      if (wait.equals(config.idleCheck())) {
        break; // nothing left to upload
      }
      pacedNanos += wait.toNanos();
      time.advance(wait);
    }
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    long sent = 0;
    for (String name : ClosedBinlogs.NAMES) {
      sent += objects.bytes(ArchivedFileRecord.dataKey(PREFIX, name)).length;
      sent += objects.bytes(ArchivedFileRecord.metaKey(PREFIX, name)).length;
    }
    // 100,000 bytes/s: 10 us a byte; the first 10,000 bytes (100 ms) pass at once.
    assertThat(pacedNanos).isEqualTo((sent - 10_000) * 10_000);
  }

  @Test
  void uploadsWaitWhileTheRelayCatchesUpAndResumeWithinTwoSecondsOfIt() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    LagProbe lag = new LagProbe(600.0);
    Uploader uploader =
        uploader(store, objects, config(16 << 10).withDeferral(DEFER), Time.SYSTEM, StepHook.NONE);
    uploader.deferWhileCatchingUp(lag);
    uploader.start();
    eventually(WAIT, "deferred", () -> uploader.status().state() == UploadStatus.State.DEFERRED);
    assertThat(uploader.counters().deferring()).isTrue();
    assertThat(uploader.status().advice()).contains("600 s behind");
    assertThat(uploader.counters().pendingFiles()).isEqualTo(3);

    // Closer, but still more than 2 s behind: the uploads keep waiting (hysteresis).
    lag.set(5.0);
    lag.awaitReads(3);
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.DEFERRED);
    assertThat(objects.calls(Op.PUT)).isZero();
    assertThat(objects.calls(Op.CREATE_MULTIPART)).isZero();

    lag.set(1.5);
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(uploader.status().state()).isEqualTo(UploadStatus.State.OK);
    assertThat(uploader.counters().deferring()).isFalse();
    assertThat(uploader.counters().deferredNanos()).isPositive();
  }

  @Test
  void aCatchUpStartingMidUploadPausesItBetweenPartsAndNoPartIsSentTwice() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    LagProbe lag = new LagProbe(0.0);
    AtomicInteger parts = new AtomicInteger();
    StepHook catchUpAtThirdPart =
        (name, step) -> {
          if (step == UploadStep.PART_SENT && parts.incrementAndGet() == 3) {
            lag.set(60.0);
          }
        };
    Uploader uploader =
        uploader(
            store, objects, config(16 << 10).withDeferral(DEFER), Time.SYSTEM, catchUpAtThirdPart);
    uploader.deferWhileCatchingUp(lag);
    uploader.start();
    eventually(WAIT, "deferred", () -> uploader.status().state() == UploadStatus.State.DEFERRED);
    UploadState paused =
        UploadState.read(Uploader.stateDirectory(store.directory()), "binlog.000003");
    assertThat(paused.phase()).isEqualTo(Phase.UPLOADING);
    assertThat(paused.parts()).hasSize(3);
    lag.awaitReads(2);
    assertThat(objects.calls(Op.UPLOAD_PART)).isEqualTo(3);

    lag.set(0.0);
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertArchivedOnce(store, objects);
    assertThat(objects.calls(Op.UPLOAD_PART)).isEqualTo(13);
  }

  @Test
  void uploadsGoOnDuringACatchUpOnceTheFilesWaitingHoldTheMostAllowed() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    long closed = ClosedBinlogs.closed(store).stream().mapToLong(FileMetadata::size).sum();
    // The lag stays at 600 s; the first file's upload brings the files waiting under the limit.
    CatchUpDeferral rule = new CatchUpDeferral(Duration.ofSeconds(10), closed);
    Uploader uploader =
        uploader(store, objects, config(16 << 10).withDeferral(rule), Time.SYSTEM, StepHook.NONE);
    uploader.deferWhileCatchingUp(new LagProbe(600.0));
    uploader.start();
    eventually(
        WAIT,
        "the first file archived, then deferred",
        () ->
            uploader.gate().archived("binlog.000001")
                && uploader.status().state() == UploadStatus.State.DEFERRED);
    assertThat(uploader.gate().archived("binlog.000002")).isFalse();
  }

  @Test
  void anUnknownLagNeverHoldsTheUploadsBack() throws Exception {
    BinlogStore store = store("a");
    DirectoryObjectStore objects = new DirectoryObjectStore(tmp.resolve("s3"));
    Uploader uploader =
        uploader(store, objects, config(16 << 10).withDeferral(DEFER), Time.SYSTEM, StepHook.NONE);
    uploader.deferWhileCatchingUp(
        new LagProbe(Double.NaN)); // not streaming: primary down, disk full
    uploader.start();
    awaitArchived(uploader, ClosedBinlogs.NAMES);
    assertThat(uploader.counters().deferredNanos()).isZero();
  }

  /** Uploads wait while more than 10 s behind, for at most 1 GiB of files. */
  private static final CatchUpDeferral DEFER =
      new CatchUpDeferral(Duration.ofSeconds(10), 1L << 30);

  /** A relay's lag set by the test, counting how often the uploader read it. */
  private static final class LagProbe implements IngestLag {
    private volatile double seconds;
    private final AtomicInteger reads = new AtomicInteger();

    LagProbe(double seconds) {
      this.seconds = seconds;
    }

    void set(double s) {
      seconds = s;
    }

    /** Waits until the uploader read the lag {@code n} more times (it does twice a second). */
    void awaitReads(int n) throws Exception {
      int target = reads.get() + n;
      eventually(WAIT, n + " more reads of the lag", () -> reads.get() >= target);
    }

    @Override
    public double secondsBehind() {
      reads.incrementAndGet();
      return seconds;
    }
  }

  private BinlogStore store(String dir) throws Exception {
    BinlogStore store = ClosedBinlogs.filled(tmp.resolve(dir));
    stores.add(store);
    return store;
  }

  private Uploader uploader(
      BinlogStore store,
      DirectoryObjectStore objects,
      UploadConfig config,
      Time time,
      StepHook hook) {
    return uploader(store, objects, config, time, () -> 0.5, hook);
  }

  private Uploader uploader(
      BinlogStore store,
      DirectoryObjectStore objects,
      UploadConfig config,
      Time time,
      java.util.function.DoubleSupplier jitter,
      StepHook hook) {
    Uploader u = new Uploader(store, objects, config, time, jitter, hook);
    uploaders.add(u);
    return u;
  }

  /**
   * Waits until every file in {@code names} is VERIFIED and the uploader has counted and announced
   * it (it has looked for the next file: nothing pending).
   */
  private static void awaitArchived(Uploader uploader, List<String> names) throws Exception {
    eventually(
        WAIT,
        "archived: " + names,
        () -> names.stream().allMatch(uploader.gate()::archived),
        done -> {
          if (!done) {
            UploadStatus s = uploader.status();
            if (s.state() == UploadStatus.State.CONFLICT) {
              throw new AssertionError("conflict: " + s.lastError());
            }
          }
          return done;
        });
    eventually(WAIT, "nothing pending", () -> uploader.counters().pendingFiles() == 0);
  }

  private static ArchivedFileRecord record(DirectoryObjectStore objects, String name)
      throws Exception {
    String key = ArchivedFileRecord.metaKey(PREFIX, name);
    return ArchivedFileRecord.decode(objects.bytes(key), key, name);
  }

  /** Every closed file: data bytes equal, one write per key, its record right, no uploads left. */
  private static void assertArchivedOnce(BinlogStore store, DirectoryObjectStore objects)
      throws Exception {
    Map<String, Integer> writes = new ConcurrentHashMap<>();
    for (FileMetadata f : ClosedBinlogs.closed(store)) {
      String data = ArchivedFileRecord.dataKey(PREFIX, f.name());
      String meta = ArchivedFileRecord.metaKey(PREFIX, f.name());
      assertThat(objects.bytes(data)).as(data).isEqualTo(ClosedBinlogs.local(store, f.name()));
      ArchivedFileRecord r = record(objects, f.name());
      assertThat(r.file()).isEqualTo(f);
      assertThat(r.sha256())
          .isEqualTo(
              LocalDigest.hex(
                  LocalDigest.digest("SHA-256").digest(ClosedBinlogs.local(store, f.name()))));
      writes.put(data, objects.completedWrites(data));
      writes.put(meta, objects.completedWrites(meta));
    }
    assertThat(writes).hasSize(6).allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
    assertThat(objects.keysWrittenMoreThanOnce()).isEmpty();
    assertThat(objects.unfinishedUploads()).isZero();
  }
}
