package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.protocol.event.BinlogEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stopped state after an I/O error: appends stop, what is complete stays, and either reopening
 * or {@link BinlogStore#tryResume()} recovers and resumes. The fault is injected by closing the
 * open file's channel under the writer, which makes the next write fail with an IOException
 * (without a message, so the error counts as {@link StoreCondition#IO_ERROR}). {@link DiskFullTest}
 * and {@link IoErrorTest} cover disk errors in depth.
 */
class StoreFailureTest {
  @TempDir Path dir;

  @Test
  void anIoErrorStopsWritesAndReopeningResumes() throws Exception {
    stopWithAnIoError(false);
  }

  @Test
  void anIoErrorStopsWritesAndTryResumeResumesInPlace() throws Exception {
    stopWithAnIoError(true);
  }

  private void stopWithAnIoError(boolean inPlace) throws Exception {
    SourceBinlog source = SourceBinlog.mariadb();
    AtomicReference<Throwable> heard = new AtomicReference<>();
    List<BinlogEvent> stream = source.dumpStream(Position.startOf(source.files.get(0)));
    Position lastComplete = null;
    int i = 0;
    BinlogStore store = BinlogStore.open(Stores.config(dir, source).build());
    try {
      store.addListener(
          new StoreListener() {
            @Override
            public void failed(Throwable cause) {
              heard.set(cause);
            }
          });
      store.startStream();
      while (lastComplete == null || !store.currentFile().orElse("").equals(source.files.get(1))) {
        Appended a = store.append(stream.get(i++));
        if (a.completedTransaction()) {
          lastComplete = a.position();
        }
      }
      store.sync().join();
      CompletableFuture<Position> beyond =
          store.readable().whenReached(new Position(source.lastFile(), 4));
      openFile(store).close();
      BinlogEvent next = stream.get(i);
      assertThatThrownBy(() -> store.append(next))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("hit an I/O error: writing " + next.length() + " bytes")
          .hasMessageContaining("Check the disk under " + store.directory());
      assertThat(store.failure()).isPresent();
      assertThat(store.health().condition()).isEqualTo(StoreCondition.IO_ERROR);
      assertThat(store.health().ioErrorEvents()).isEqualTo(1);
      assertThat(heard.get()).isNotNull();
      assertThat(beyond).as("readers keep waiting; the readable boundary stays").isNotDone();
      assertThat(store.readable().isStopped()).isFalse();
      assertThatThrownBy(() -> store.append(next))
          .isInstanceOf(StoreFailedException.class)
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("does not accept writes (IO_ERROR");
      assertThatThrownBy(store::startStream).isInstanceOf(StoreFailedException.class);
      if (inPlace) {
        assertThat(store.tryResume()).isTrue();
        assertThat(store.failure()).isEmpty();
        assertThat(store.readableEnd()).isGreaterThanOrEqualTo(lastComplete);
        Stores.appendFrom(store, source);
        assertThat(beyond).isCompleted();
        store.close();
        for (String f : source.files) {
          assertThat(Files.readAllBytes(dir.resolve(f))).isEqualTo(source.bytes.get(f));
        }
        return;
      }
      closeQuietly(store);
      assertThat(beyond).isCompletedExceptionally();
      assertThat(store.readable().isStopped()).isTrue();
    } finally {
      closeQuietly(store);
    }
    try (BinlogStore reopened = BinlogStore.open(Stores.config(dir, source).build())) {
      assertThat(reopened.readableEnd()).isGreaterThanOrEqualTo(lastComplete);
      Stores.assertPrefixOfSource(
          dir, source, reopened.readableEnd(), reopened.currentFile().isPresent());
      Stores.appendFrom(reopened, source);
    }
    for (String f : source.files) {
      assertThat(Files.readAllBytes(dir.resolve(f))).isEqualTo(source.bytes.get(f));
    }
  }

  /** close() may report the failure again; what matters is what reopening finds. */
  private static void closeQuietly(BinlogStore store) {
    try {
      store.close();
    } catch (IOException expected) {
      // already failed
    }
  }

  private static BinlogFile openFile(BinlogStore store) throws ReflectiveOperationException {
    Field writerField = BinlogStore.class.getDeclaredField("writer");
    writerField.setAccessible(true);
    Object writer = writerField.get(store);
    Field openField = StoreWriter.class.getDeclaredField("open");
    openField.setAccessible(true);
    return ((OpenFile) openField.get(writer)).file;
  }
}
