package org.binlogrelay.storage.read;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test side: what a reader handed out, per file, as a server would send it: batch bytes (copied or
 * transferred from the region), skipped ranges and file changes.
 */
final class Collected {
  final Map<String, ByteArrayOutputStream> bytes = new LinkedHashMap<>();
  final List<FileChange> changes = new ArrayList<>();
  final List<Skipped> skipped = new ArrayList<>();
  final List<EventBatch> batches = new ArrayList<>();
  private final boolean zeroCopy;

  Collected(boolean zeroCopy) {
    this.zeroCopy = zeroCopy;
  }

  /** Takes one result; returns false for {@link CaughtUp}. */
  boolean take(ReadResult result) throws IOException {
    if (result instanceof EventBatch batch) {
      try (batch) {
        ByteArrayOutputStream out =
            bytes.computeIfAbsent(batch.file(), f -> new ByteArrayOutputStream());
        if (zeroCopy) {
          FileRegionSpec region = batch.region();
          WritableByteChannel target = Channels.newChannel(out);
          long done = 0;
          while (done < region.count()) {
            done +=
                region
                    .channel()
                    .transferTo(region.position() + done, region.count() - done, target);
          }
        } else {
          ByteBuffer buf = ByteBuffer.allocate((int) batch.length());
          batch.copyTo(buf);
          out.write(buf.array());
        }
        batches.add(batch);
      }
      return true;
    }
    if (result instanceof FileChange change) {
      changes.add(change);
      return true;
    }
    if (result instanceof Skipped skip) {
      skipped.add(skip);
      return true;
    }
    return false;
  }

  /** Polls until caught up. */
  static Collected drain(BinlogReader reader, boolean zeroCopy) throws IOException {
    Collected c = new Collected(zeroCopy);
    while (c.take(reader.poll())) {
      // keep reading
    }
    return c;
  }

  byte[] of(String file) {
    ByteArrayOutputStream out = bytes.get(file);
    return out == null ? new byte[0] : out.toByteArray();
  }
}
