package org.binlogrelay.archive.upload;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.binlogrelay.archive.objectstore.ObjectStore;
import org.binlogrelay.storage.Time;

/**
 * The archive's upload rate limit ({@code --archive-max-upload-rate}): a token bucket of bytes
 * filled at {@code bytesPerSecond} that holds at most {@link #BURST} worth of them. {@link #limit}
 * wraps the object store the {@link Uploader} writes to so that every upload body ({@code put} and
 * {@code uploadPart}, retries included) is read through it: a read of {@code n} bytes takes {@code
 * n} tokens and, when the bucket is empty, the reading thread (the uploader's) waits on the {@link
 * Time} until they are due. The limit is on the bytes sent, so it also paces the upload thread's
 * reads of the local file. Waits come from an injected {@link Sleeper} (tests count them instead of
 * waiting). A rate of 0 is unlimited: {@link #limit} then returns the store itself.
 *
 * <p>Thread-safe: the bucket is shared by every stream it opens ({@link #take} is synchronized;
 * waits happen outside the lock).
 */
public final class UploadRateLimiter {
  /** How much unused rate the bucket keeps: bytes of 100 ms at the rate. */
  static final Duration BURST = Duration.ofMillis(100);

  /** Waits a number of nanoseconds on the limiter's clock. */
  @FunctionalInterface
  interface Sleeper {
    void sleep(long nanos) throws InterruptedException;
  }

  private final long bytesPerSecond;
  private final Time time;
  private final Sleeper sleeper;
  private final long burstNanos;
  private boolean started; // guarded by this
  private long dueNanos; // guarded by this: when the bytes taken so far are paid for

  /** A limiter of {@code bytesPerSecond} (0: unlimited) waiting with {@link Time#sleep}. */
  public UploadRateLimiter(long bytesPerSecond, Time time) {
    this(bytesPerSecond, time, nanos -> time.sleep(Duration.ofNanos(nanos)));
  }

  /** Tests: the waits go to {@code sleeper}. */
  UploadRateLimiter(long bytesPerSecond, Time time, Sleeper sleeper) {
    if (bytesPerSecond < 0) {
      throw new IllegalArgumentException("upload rate " + bytesPerSecond + " < 0");
    }
    this.bytesPerSecond = bytesPerSecond;
    this.time = time;
    this.sleeper = sleeper;
    this.burstNanos = BURST.toNanos();
  }

  /** The rate in bytes per second; 0 is unlimited. */
  public long bytesPerSecond() {
    return bytesPerSecond;
  }

  /**
   * Takes {@code bytes} tokens and waits until they are due (at once while the bucket holds them).
   *
   * @throws InterruptedIOException if the thread is interrupted while waiting (its interrupt flag
   *     is set again), so that an upload being stopped ends like any failed read
   */
  void take(long bytes) throws InterruptedIOException {
    if (bytesPerSecond == 0 || bytes <= 0) {
      return;
    }
    long wait = reserve(bytes);
    if (wait <= 0) {
      return;
    }
    try {
      sleeper.sleep(wait);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while pacing the upload");
    }
  }

  /** Books {@code bytes} and returns how long to wait for them (nanoseconds, 0: none). */
  private synchronized long reserve(long bytes) {
    long now = time.nanoseconds();
    if (!started || dueNanos < now - burstNanos) {
      // An idle bucket is full, but holds no more than the burst.
      dueNanos = now - burstNanos;
      started = true;
    }
    dueNanos += costNanos(bytes);
    return Math.max(0, dueNanos - now);
  }

  private long costNanos(long bytes) {
    long seconds = bytes / bytesPerSecond;
    long rest = bytes % bytesPerSecond;
    return seconds * 1_000_000_000L + rest * 1_000_000_000L / bytesPerSecond;
  }

  /** {@code in}, whose reads take tokens from this bucket. */
  InputStream limit(InputStream in) {
    if (bytesPerSecond == 0) {
      return in;
    }
    return new FilterInputStream(in) {
      @Override
      public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
          take(1);
        }
        return b;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
          take(n);
        }
        return n;
      }
    };
  }

  /** {@code body}, each opening read through this bucket. */
  ObjectStore.BodySource limit(ObjectStore.BodySource body) {
    return () -> limit(body.open());
  }

  /**
   * {@code objects} with its upload bodies ({@code put}, {@code uploadPart}) read through this
   * bucket; every other call goes straight through. {@code objects} itself when unlimited.
   */
  public ObjectStore limit(ObjectStore objects) {
    if (bytesPerSecond == 0) {
      return objects;
    }
    return new PacedObjectStore(objects);
  }

  @Override
  public String toString() {
    return bytesPerSecond == 0 ? "unlimited" : bytesPerSecond + " bytes/s";
  }

  /** The object store whose upload bodies are paced; a pure delegate otherwise. */
  private final class PacedObjectStore implements ObjectStore {
    private final ObjectStore objects;

    PacedObjectStore(ObjectStore objects) {
      this.objects = objects;
    }

    @Override
    public Optional<ObjectInfo> head(String key) {
      return objects.head(key);
    }

    @Override
    public String put(
        String key, BodySource body, long length, byte[] md5, Map<String, String> userMetadata) {
      return objects.put(key, limit(body), length, md5, userMetadata);
    }

    @Override
    public String createMultipart(String key, Map<String, String> userMetadata) {
      return objects.createMultipart(key, userMetadata);
    }

    @Override
    public String uploadPart(
        String key, String uploadId, int partNumber, BodySource body, long length, byte[] md5) {
      return objects.uploadPart(key, uploadId, partNumber, limit(body), length, md5);
    }

    @Override
    public List<Part> listParts(String key, String uploadId) {
      return objects.listParts(key, uploadId);
    }

    @Override
    public String completeMultipart(String key, String uploadId, List<Part> parts) {
      return objects.completeMultipart(key, uploadId, parts);
    }

    @Override
    public void abortMultipart(String key, String uploadId) {
      objects.abortMultipart(key, uploadId);
    }

    @Override
    public List<PendingUpload> listMultipartUploads(String prefix) {
      return objects.listMultipartUploads(prefix);
    }

    @Override
    public InputStream get(String key, long offset, long length) {
      return objects.get(key, offset, length);
    }

    @Override
    public ListPage list(String prefix, String startAfter) {
      return objects.list(prefix, startAfter);
    }

    @Override
    public void delete(String key) {
      objects.delete(key);
    }

    @Override
    public void close() {
      objects.close();
    }
  }
}
