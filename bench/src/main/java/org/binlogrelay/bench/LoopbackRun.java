package org.binlogrelay.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.binlogrelay.bench.report.Report;

/**
 * {@code loopback}: the physical limit of a catch-up on this machine. The given files are sent over
 * one plain TCP connection on 127.0.0.1 with {@link FileChannel#transferTo} (sendfile: no copy
 * through user space), and a receiver thread reads them into one reused buffer of the catch-up
 * client's size and drops them. No protocol, no packet headers, no CRC: what remains is the
 * kernel's file read, the loopback and one copy into the receiver.
 *
 * <p>The clock starts once the connection is established and stops when the receiver reads the end
 * of the stream, which the sender signals by shutting down its output after the last file. The byte
 * count is checked: the receiver must have read exactly the files' total size.
 *
 * <p>Not thread-safe; one run per instance. The receiver is a thread of its own, joined before the
 * report.
 */
final class LoopbackRun {
  /** What to send. Immutable. */
  record Settings(List<Path> files, int receiveBuffer) {}

  private final Settings settings;

  LoopbackRun(Settings settings) {
    this.settings = settings;
  }

  Report run() throws IOException, InterruptedException {
    long expected = 0;
    for (Path f : settings.files()) {
      if (!Files.isRegularFile(f)) {
        throw new IOException("not a regular file: " + f);
      }
      expected += Files.size(f);
    }
    AtomicLong received = new AtomicLong();
    AtomicLong endNanos = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long startNanos;
    try (ServerSocketChannel listener = ServerSocketChannel.open()) {
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      Thread receiver =
          new Thread(() -> receive(listener, received, endNanos, failure), "loopback-receiver");
      receiver.setDaemon(true);
      receiver.start();
      try (SocketChannel out = SocketChannel.open(listener.getLocalAddress())) {
        startNanos = System.nanoTime();
        for (Path f : settings.files()) {
          send(f, out);
        }
        out.shutdownOutput();
        receiver.join();
      } finally {
        receiver.interrupt();
      }
    }
    if (failure.get() != null) {
      throw new IOException("the receiver failed: " + failure.get().getMessage(), failure.get());
    }
    if (received.get() != expected) {
      throw new IOException("the receiver read " + received.get() + " bytes of " + expected);
    }
    double seconds = Math.max(1e-9, (endNanos.get() - startNanos) / 1e9);
    List<String> names = new ArrayList<>();
    for (Path f : settings.files()) {
      names.add(f.getFileName().toString());
    }
    return new Report(
            "loopback", settings.files().size() + " files over a loopback socket with transferTo")
        .figure("files", "files", settings.files().size(), "")
        .figure("seconds", "connected -> receiver read the last byte", seconds, "s")
        .figure("event_bytes", "bytes sent and received", expected, "B")
        .figure("mb_per_s", "throughput", expected / 1e6 / seconds, "MB/s")
        .figure("receive_buffer", "receiver's buffer", settings.receiveBuffer(), "B")
        .note(
            "sender: FileChannel.transferTo per file (sendfile); receiver: one thread reading into one reused "
                + "buffer; no protocol, no CRC; the limit a catch-up of these files cannot pass on this machine")
        .note("files: " + String.join(" ", names));
  }

  private static void send(Path file, SocketChannel out) throws IOException {
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = in.size();
      long sent = 0;
      while (sent < size) {
        sent += in.transferTo(sent, size - sent, out);
      }
    }
  }

  private void receive(
      ServerSocketChannel listener,
      AtomicLong received,
      AtomicLong endNanos,
      AtomicReference<Throwable> failure) {
    try (SocketChannel in = listener.accept()) {
      ByteBuffer buffer = ByteBuffer.allocateDirect(settings.receiveBuffer());
      long total = 0;
      int n;
      while ((n = in.read(buffer)) >= 0) {
        total += n;
        buffer.clear();
      }
      endNanos.set(System.nanoTime());
      received.set(total);
    } catch (IOException | RuntimeException e) {
      failure.set(e);
      endNanos.set(System.nanoTime());
    }
  }
}
