package org.binlogrelay.server.serving;

import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Bytes of a stored binlog file sent without copying ({@code FileChannel.transferTo}, i.e. {@code
 * sendfile}): a Netty {@link FileRegion} over part of an {@link
 * org.binlogrelay.storage.read.EventBatch}. Unlike Netty's {@code DefaultFileRegion}, releasing it
 * does not close the file channel (the batch owns it, and other regions and readers share it); it
 * gives its {@link BatchLease} reference back instead.
 *
 * <p>Netty transfers and releases a region on the channel's event loop; the class is as thread-safe
 * as {@link AbstractReferenceCounted}.
 */
final class BatchRegion extends AbstractReferenceCounted implements FileRegion {
  private final BatchLease lease;
  private final FileChannel channel;
  private final long position;
  private final long count;
  private long transferred;

  /**
   * Takes a reference on {@code lease}; {@code [position, position + count)} of the batch's file.
   */
  BatchRegion(BatchLease lease, FileChannel channel, long position, long count) {
    this.lease = lease.retain();
    this.channel = channel;
    this.position = position;
    this.count = count;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  @Deprecated
  public long transfered() {
    return transferred;
  }

  @Override
  public long transferred() {
    return transferred;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long transferTo(WritableByteChannel target, long at) throws IOException {
    long left = count - at;
    if (left < 0 || at < 0) {
      throw new IllegalArgumentException(
          "position " + at + " outside a region of " + count + " bytes");
    }
    if (left == 0) {
      return 0;
    }
    long written = channel.transferTo(position + at, left, target);
    if (written > 0) {
      transferred += written;
    } else if (written == 0 && channel.size() < position + count) {
      throw new EOFException(
          "binlog file "
              + lease.batch().file()
              + " is "
              + channel.size()
              + " bytes on disk, but"
              + " the relay was sending it up to "
              + (position + count)
              + ": it was truncated under the store");
    }
    return written;
  }

  @Override
  protected void deallocate() {
    lease.release();
  }

  @Override
  public BatchRegion retain() {
    super.retain();
    return this;
  }

  @Override
  public BatchRegion retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public BatchRegion touch() {
    return this;
  }

  @Override
  public BatchRegion touch(Object hint) {
    return this;
  }

  @Override
  public String toString() {
    return "BatchRegion(" + lease.batch().file() + " [" + position + ", +" + count + "))";
  }
}
