package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.List;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.read.EventBatch;

/**
 * Writes the events of one {@link EventBatch} to a replica's channel, each event as its own
 * packet(s) ({@link PacketSequence}), in steps small enough to respect the channel's writability
 * between them:
 *
 * <ul>
 *   <li><b>copy runs</b>: consecutive small events are read with one positional read and written as
 *       one buffer of packets (fewer system calls than a region per event; the only path with TLS);
 *   <li><b>regions</b>: an event of at least {@link ServingConfig#zeroCopyMinEventBytes()} on a
 *       connection without TLS goes out as a frame header and {@link BatchRegion}s ({@code
 *       sendfile}), one per frame;
 *   <li><b>large copies</b>: an event above {@link ServingConfig#copyChunkBytes()} on the copy path
 *       goes out in chunks, frame headers placed where its payload crosses 0xFFFFFF bytes.
 * </ul>
 *
 * The event at offset 4 of a file (its FORMAT_DESCRIPTION) is always copied, so that the {@link
 * Listener} can patch it. Events the listener drops are left out; artificial events it asks for go
 * right after the event they follow. Both paths put the same bytes on the wire.
 *
 * <p>Not thread-safe: the channel's event loop owns it.
 */
final class BatchWriter {

  /** What the stream decides per event. Called on the event loop, in stream order. */
  interface Listener {
    /**
     * The FORMAT_DESCRIPTION at {@code [index, index + size)} of {@code buffer}: patch it in place,
     * or refuse.
     */
    void formatDescription(ByteBuf buffer, int index, int size, String file) throws DumpFailure;

    /** Whether an event of this type is left out. */
    boolean drops(int eventType);

    /** The event at {@code start} of {@code file} went out ({@code sent}) or was left out. */
    void passed(String file, long start, int size, int eventType, boolean sent);

    /**
     * Whether {@link #after} may return events at all in this stream; if not, the writer does not
     * ask.
     */
    boolean addsEvents();

    /** Artificial events (whole event bytes) to send right after the event at {@code start}. */
    List<byte[]> after(String file, long start, int size);

    /**
     * A region of {@code bytes} was written; {@code done} completes once Netty sent or dropped it.
     * (Netty counts file regions as 0 bytes against the channel's writability; the stream counts
     * them itself.)
     */
    void regionWritten(long bytes, ChannelFuture done);
  }

  private static final int EVENT_TYPE_OFFSET = 4;

  private final Channel channel;
  private final ByteBufAllocator alloc;
  private final PacketSequence sequence;
  private final boolean zeroCopy;
  private final int zeroCopyMinEventBytes;
  private final int chunkBytes;
  private final Listener listener;

  private BatchLease lease;
  private EventBatch batch;

  /**
   * The batch's bytes when the reader read them into the stream's buffer ({@link
   * EventBatch#inMemory()}).
   */
  private ByteBuf memory;

  private boolean addsEvents;
  private FileChannel file;

  /** The batch's event count. */
  private int events;

  /** The next event to write, and its offset in the file. */
  private int index;

  private long offset;

  private LargeEvent large;

  BatchWriter(
      Channel channel,
      PacketSequence sequence,
      boolean zeroCopy,
      ServingConfig config,
      Listener listener) {
    this.channel = channel;
    this.alloc = channel.alloc();
    this.sequence = sequence;
    this.zeroCopy = zeroCopy;
    this.zeroCopyMinEventBytes = config.zeroCopyMinEventBytes();
    this.chunkBytes = config.copyChunkBytes();
    this.listener = listener;
  }

  /** Takes over {@code next} (closed once written, or by {@link #release()}). */
  void start(EventBatch next) {
    start(next, null);
  }

  /**
   * Takes over {@code next}, whose bytes are at index 0 of {@code bytes} (the buffer the reader
   * read it into; {@code null} if it was not): the packets are built from there, with no read of
   * the file, and the batch's FORMAT_DESCRIPTION is patched there. The caller leaves {@code bytes}
   * alone until {@link #active()} is false.
   */
  void start(EventBatch next, ByteBuf bytes) {
    if (lease != null) {
      throw new IllegalStateException("batch " + batch + " is still being written");
    }
    if (bytes != null && bytes.capacity() < next.length()) {
      throw new IllegalArgumentException(
          "batch " + next + " does not fit a buffer of " + bytes.capacity());
    }
    lease = new BatchLease(next);
    batch = next;
    memory = bytes;
    addsEvents = listener.addsEvents();
    file = next.region().channel();
    events = next.eventCount();
    index = 0;
    offset = next.start();
    finishIfDone();
  }

  /** True while a batch is being written. */
  boolean active() {
    return lease != null;
  }

  /** Writes the next step (a run, a region, a chunk); does not flush. */
  void writeNext() throws IOException, DumpFailure {
    if (large != null) {
      large.writeChunk();
      if (large.done()) {
        large = null;
        passOne();
      }
    } else {
      int size = batch.eventSize(index);
      if (memory != null && size <= chunkBytes && !asRegion(size)) {
        copyRun(runEnd());
      } else if (offset == BinlogFileName.FIRST_EVENT_OFFSET) {
        copyRun(index + 1);
      } else if (zeroCopy && size >= zeroCopyMinEventBytes) {
        region(size);
      } else if (size > chunkBytes) {
        startLarge(size);
      } else {
        copyRun(runEnd());
      }
    }
    finishIfDone();
  }

  /** Lets go of the batch being written, if any (the stream ends). */
  void release() {
    large = null;
    if (lease != null) {
      lease.release();
      lease = null;
      batch = null;
      memory = null;
    }
  }

  private void finishIfDone() {
    if (lease != null && index == events && large == null) {
      lease.release();
      lease = null;
      batch = null;
      memory = null;
    }
  }

  /**
   * The next event goes out (or is left out) on its own: a region, or a large event's last chunk.
   */
  private void passOne() {
    offset += batch.eventSize(index);
    index++;
  }

  /**
   * The end of the run of small events starting at {@link #index} that fits one chunk. In memory,
   * every event up to a chunk joins the run (the FORMAT_DESCRIPTION is patched in the stream's
   * buffer); from the file, the FORMAT_DESCRIPTION and events sent as regions end it.
   */
  private int runEnd() {
    int j = index;
    long total = 0;
    while (j < events) {
      int size = batch.eventSize(j);
      boolean fits =
          size <= chunkBytes && !asRegion(size) && (j == index || total + size <= chunkBytes);
      // Offsets only grow from the batch's start: only its first event can be a file's first.
      boolean formatDescription =
          memory == null && j == 0 && batch.start() == BinlogFileName.FIRST_EVENT_OFFSET;
      if (!fits || formatDescription) {
        break;
      }
      total += size;
      j++;
    }
    return j;
  }

  /**
   * Whether an event of {@code size} bytes (not the FORMAT_DESCRIPTION) goes out as file regions.
   */
  private boolean asRegion(int size) {
    return zeroCopy && size >= zeroCopyMinEventBytes;
  }

  /** Writes events {@link #index} to {@code to} (exclusive) as one buffer of packets. */
  private void copyRun(int to) throws IOException, DumpFailure {
    int from = index;
    long start = offset;
    long runEnd = start;
    for (int k = from; k < to; k++) {
      runEnd += batch.eventSize(k);
    }
    int length = (int) (runEnd - start);
    ByteBuf data;
    long base;
    if (memory != null) {
      data = memory.retain();
      base = batch.start();
    } else {
      data = alloc.directBuffer(length);
      base = start;
    }
    ByteBuf out = null;
    try {
      if (memory == null) {
        read(data, start, length);
      }
      out = alloc.directBuffer(length + (to - from) * (PacketSequence.HEADER + 1));
      String name = batch.file();
      if (!addsEvents && data.nioBufferCount() == 1 && out.nioBufferCount() == 1) {
        frameRun(data, base, out, from, to, name);
        index = to;
        offset = runEnd;
        ByteBuf written = out;
        out = null;
        channel.write(written);
        return;
      }
      long eventOffset = start;
      for (int k = from; k < to; k++) {
        int at = (int) (eventOffset - base);
        int size = batch.eventSize(k);
        if (eventOffset == BinlogFileName.FIRST_EVENT_OFFSET) {
          listener.formatDescription(data, at, size, name);
        }
        int type = data.getUnsignedByte(at + EVENT_TYPE_OFFSET);
        boolean drop = listener.drops(type);
        if (!drop) {
          sequence.event(out, data, at, size);
        }
        listener.passed(name, eventOffset, size, type, !drop);
        if (!drop && addsEvents) {
          for (byte[] extra : listener.after(name, eventOffset, size)) {
            sequence.event(out, Unpooled.wrappedBuffer(extra), 0, extra.length);
          }
        }
        eventOffset += size;
      }
      index = to;
      offset = runEnd;
      ByteBuf written = out;
      out = null;
      channel.write(written);
    } finally {
      data.release();
      if (out != null) {
        out.release();
      }
    }
  }

  /**
   * The copy run's loop without artificial events, over the buffers' NIO views: per event one type
   * read, the frame header as one int, the marker and one bulk copy, instead of a series of checked
   * buffer operations per event (their accessibility checks were a third of the event loop's time).
   * Events of a run are below a frame's limit.
   */
  private void frameRun(ByteBuf data, long base, ByteBuf out, int from, int to, String name)
      throws DumpFailure {
    ByteBuffer dst = out.nioBuffer(0, out.capacity()).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer src = null;
    int w = out.writerIndex();
    long eventOffset = offset;
    for (int k = from; k < to; k++) {
      int at = (int) (eventOffset - base);
      int size = batch.eventSize(k);
      if (eventOffset == BinlogFileName.FIRST_EVENT_OFFSET) {
        listener.formatDescription(data, at, size, name);
      }
      if (src == null) {
        src = data.nioBuffer(0, data.capacity());
      }
      int type = src.get(at + EVENT_TYPE_OFFSET) & 0xff;
      boolean drop = listener.drops(type);
      if (!drop) {
        w = sequence.event(dst, w, src, at, size);
      }
      listener.passed(name, eventOffset, size, type, !drop);
      eventOffset += size;
    }
    out.writerIndex(w);
  }

  /** Writes the next event, of {@code size} bytes, as file regions. */
  private void region(int size) throws IOException {
    int type = typeAt(offset);
    boolean drop = listener.drops(type);
    if (!drop) {
      long payload = size + 1L;
      int frames = PacketSequence.frames(payload);
      long at = offset;
      for (int k = 0; k < frames; k++) {
        int length = PacketSequence.frameLength(payload, k);
        ByteBuf header = alloc.directBuffer(PacketSequence.HEADER + 1);
        sequence.header(header, length);
        int data = length;
        if (k == 0) {
          header.writeByte(0);
          data--;
        }
        channel.write(header);
        if (data > 0) {
          listener.regionWritten(data, channel.write(new BatchRegion(lease, file, at, data)));
          at += data;
        }
      }
    }
    listener.passed(batch.file(), offset, size, type, !drop);
    if (!drop) {
      writeExtras(listener.after(batch.file(), offset, size));
    }
    passOne();
  }

  /** Starts writing the next event, of {@code size} bytes, in chunks. */
  private void startLarge(int size) throws IOException {
    int type = typeAt(offset);
    if (listener.drops(type)) {
      listener.passed(batch.file(), offset, size, type, false);
      passOne();
      return;
    }
    large = new LargeEvent(offset, size, type);
    large.writeChunk();
    if (large.done()) {
      large = null;
      passOne();
    }
  }

  private void writeExtras(List<byte[]> extras) {
    for (byte[] extra : extras) {
      ByteBuf out = alloc.directBuffer(extra.length + PacketSequence.HEADER + 1);
      sequence.event(out, Unpooled.wrappedBuffer(extra), 0, extra.length);
      channel.write(out);
    }
  }

  /**
   * Reads {@code length} bytes at file offset {@code offset} of the batch onto the end of {@code
   * out}.
   */
  private void read(ByteBuf out, long offset, int length) throws IOException {
    out.ensureWritable(length);
    ByteBuffer target = out.nioBuffer(out.writerIndex(), length);
    batch.copyTo(target, offset - batch.start(), length);
    out.writerIndex(out.writerIndex() + length);
  }

  private int typeAt(long offset) throws IOException {
    ByteBuffer one = ByteBuffer.allocate(1);
    if (file.read(one, offset + EVENT_TYPE_OFFSET) < 1) {
      throw new EOFException(
          "binlog file "
              + batch.file()
              + " ends before the event at "
              + offset
              + " that the store made readable: it was truncated under the store");
    }
    return one.get(0) & 0xff;
  }

  /**
   * An event written in chunks on the copy path: which frame, and how much of its payload went out.
   */
  private final class LargeEvent {
    private final long offset;
    private final int size;
    private final int type;
    private final long payload;
    private final int frames;
    private int frame;
    private int inFrame;

    LargeEvent(long offset, int size, int type) {
      this.offset = offset;
      this.size = size;
      this.type = type;
      this.payload = size + 1L;
      this.frames = PacketSequence.frames(payload);
    }

    boolean done() {
      return frame == frames;
    }

    void writeChunk() throws IOException {
      int frameLength = PacketSequence.frameLength(payload, frame);
      int n = Math.min(chunkBytes, frameLength - inFrame);
      ByteBuf out = alloc.directBuffer(n + PacketSequence.HEADER + 1);
      try {
        if (inFrame == 0) {
          sequence.header(out, frameLength);
          if (frame == 0) {
            out.writeByte(0);
            inFrame = 1;
            n = Math.min(chunkBytes, frameLength - inFrame);
          }
        }
        long eventOffset = (long) frame * PacketSequence.MAX_FRAME + inFrame - 1;
        if (n > 0) {
          read(out, offset + eventOffset, n);
        }
        inFrame += n;
        if (inFrame == frameLength) {
          frame++;
          inFrame = 0;
        }
        ByteBuf written = out;
        out = null;
        channel.write(written);
      } finally {
        if (out != null) {
          out.release();
        }
      }
      if (done()) {
        listener.passed(batch.file(), offset, size, type, true);
        writeExtras(listener.after(batch.file(), offset, size));
      }
    }
  }
}
