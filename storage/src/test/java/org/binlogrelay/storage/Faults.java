package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.Predicate;

/**
 * Test side: a {@link ChannelOpener} whose channels fail like a dying disk. A fault trips at the
 * n-th write (or force) on files whose name matches; a tripped write first writes half its bytes (a
 * torn write, as a short {@code write} returns) and the next call throws {@code
 * IOException("Input/output error")}, which is what the JDK reports for EIO. Once tripped, the
 * fault is sticky: every later operation of that kind on matching files fails until {@link #heal()}
 * (a write fault leaves forces and truncations working, a force fault writes). Records every write
 * (file, position, length) so tests can see what was written when. {@link #holdForces()} makes
 * every force wait (the syncer stalls, as behind a slow disk) until {@link #releaseForces()}.
 * Thread-safe.
 */
final class Faults implements ChannelOpener {
  static final String EIO = "Input/output error";

  /** What the fault hits. */
  enum Op {
    WRITE,
    FORCE
  }

  /** One write that reached the file. */
  record Write(String file, long position, int length) {}

  private final List<Write> writes = new ArrayList<>();
  private Op op;
  private Predicate<String> files = n -> false;
  private int countdown;
  private boolean tripped;
  private int faults;
  private int seen;
  private volatile CountDownLatch forceGate;

  /** Fails the {@code nth} (1-based) {@code op} on files whose name matches, from now on. */
  synchronized Faults failAt(Op what, Predicate<String> fileNames, int nth) {
    this.op = what;
    this.files = fileNames;
    this.countdown = nth;
    this.tripped = false;
    this.seen = 0;
    return this;
  }

  /** The disk works again. */
  synchronized void heal() {
    files = n -> false;
    tripped = false;
  }

  synchronized boolean tripped() {
    return tripped;
  }

  /** How many operations of the kind {@link #failAt} named reached matching files since. */
  synchronized int seen() {
    return seen;
  }

  /** How many operations failed. */
  synchronized int faults() {
    return faults;
  }

  /**
   * From now on every force (of any file, the directory included) waits for {@link
   * #releaseForces()}.
   */
  void holdForces() {
    forceGate = new CountDownLatch(1);
  }

  /** Lets held and later forces through. */
  void releaseForces() {
    CountDownLatch gate = forceGate;
    forceGate = null;
    if (gate != null) {
      gate.countDown();
    }
  }

  private void awaitForceGate() {
    CountDownLatch gate = forceGate;
    boolean interrupted = false;
    while (gate != null) {
      try {
        gate.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  synchronized List<Write> writes() {
    return List.copyOf(writes);
  }

  synchronized void clearWrites() {
    writes.clear();
  }

  @Override
  public FileChannel open(Path path, OpenOption... options) throws IOException {
    return new FaultyChannel(FileChannel.open(path, options), path.getFileName().toString());
  }

  /**
   * Before a write of {@code remaining} bytes: how many to let through (all, or half on a trip), or
   * throws.
   */
  private synchronized int beforeWrite(String name, int remaining) throws IOException {
    if (!files.test(name) || op != Op.WRITE) {
      return remaining;
    }
    seen++;
    if (tripped) {
      faults++;
      throw new IOException(EIO);
    }
    if (--countdown > 0) {
      return remaining;
    }
    tripped = true;
    if (remaining > 1) {
      return remaining / 2; // a torn write: the rest fails on the next call
    }
    faults++;
    throw new IOException(EIO);
  }

  private synchronized void beforeForce(String name) throws IOException {
    if (!files.test(name) || op != Op.FORCE) {
      return;
    }
    seen++;
    if (tripped || --countdown <= 0) {
      tripped = true;
      faults++;
      throw new IOException(EIO);
    }
  }

  private synchronized void wrote(String name, long position, int length) {
    if (length > 0) {
      writes.add(new Write(name, position, length));
    }
  }

  /** Delegates everything; writes and forces go through the fault first. */
  private final class FaultyChannel extends FileChannel {
    private final FileChannel delegate;
    private final String name;

    FaultyChannel(FileChannel delegate, String name) {
      this.delegate = delegate;
      this.name = name;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return delegate.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return delegate.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      long at = delegate.position();
      int n = writeLimited(src, -1);
      wrote(name, at, n);
      return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      long total = 0;
      for (int i = offset; i < offset + length; i++) {
        total += write(srcs[i]);
        if (srcs[i].hasRemaining()) {
          break;
        }
      }
      return total;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      int n = writeLimited(src, position);
      wrote(name, position, n);
      return n;
    }

    private int writeLimited(ByteBuffer src, long position) throws IOException {
      int allowed = beforeWrite(name, src.remaining());
      ByteBuffer part = src.duplicate();
      part.limit(part.position() + allowed);
      int n = position < 0 ? delegate.write(part) : delegate.write(part, position);
      src.position(src.position() + n);
      return n;
    }

    @Override
    public long position() throws IOException {
      return delegate.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      delegate.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return delegate.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      delegate.truncate(size);
      return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      awaitForceGate();
      beforeForce(name);
      delegate.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
        throws IOException {
      return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
        throws IOException {
      throw new UnsupportedOperationException("the store does not write with transferFrom");
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return delegate.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
    }
  }
}
