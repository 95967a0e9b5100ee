package org.binlogrelay.server.serving;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogSource;
import org.binlogrelay.storage.Position;
import org.binlogrelay.storage.read.BinlogReader;
import org.binlogrelay.storage.read.CaughtUp;
import org.binlogrelay.storage.read.EventBatch;
import org.binlogrelay.storage.read.ReadResult;

/**
 * The caught-up dumps of one event loop in one binlog file, served from one read: the group's
 * reader reads each newly readable batch once into the group's buffer, the batch is framed once per
 * distinct next sequence id among the members (members that started alike share one), and every
 * member gets a retained duplicate of the same framed buffer. A member costs the event loop its
 * write and flush, not its own read and framing.
 *
 * <p>Who is a member, and for how long:
 *
 * <ul>
 *   <li>a dump joins ({@link TailGroups#join}) when it caught up at the group's position (the
 *       readable boundary, a transaction boundary) and serves events unchanged: no transaction
 *       filter, no events added or left out (see {@link ReplicaStream});
 *   <li>a member that is not {@link Member#ready()} when a batch comes (its channel unwritable,
 *       paused) leaves at the batch's start and continues with its own reads: a stalled replica
 *       never holds the group up, and never holds more than one batch of the group's;
 *   <li>at the end of the file ({@code FileChange}), for a batch the group does not frame (one with
 *       the FORMAT_DESCRIPTION, which each stream patches itself, or an event of a frame or more,
 *       split across frames), and when the group's read or wait fails, every member leaves where
 *       the group was and continues on its own; the same cases then take the path of a single dump
 *       (rotation, truncation, the store closing), and the members join a group again once they
 *       caught up;
 *   <li>when the last member left, the group closes its reader.
 * </ul>
 *
 * The group never reads past the store's readable boundary: its reader is a {@link BinlogReader}
 * like any dump's, and its members get nothing else.
 *
 * <p>Not thread-safe: the event loop owns it; members are dumps of that loop's channels.
 */
final class TailGroup {

  /** A dump in a group; called on the group's event loop. */
  interface Member {
    /** The sequence id of the member's next frame. */
    int nextSequence();

    /** Whether the member takes a batch now (writable, not paused, not ended). */
    boolean ready();

    /**
     * One batch, framed for the member's sequence: {@code framed} is the member's reference (it
     * writes it), {@code run} says what it holds.
     */
    void deliver(ByteBuf framed, Run run);

    /**
     * The member is no longer in the group: it continues with its own reads at {@code at}; {@code
     * waitFailure} is why the group's wait for the store ended, null when it did not fail.
     */
    void left(Position at, Throwable waitFailure);
  }

  /**
   * What a framed batch holds, for the members' progress: {@code events} events of {@code bytes}
   * bytes in {@code frames} frames, {@code transactions} of them starting a transaction; the last
   * is {@code [lastStart, lastStart + lastSize)} of {@code file}, a ROTATE if {@code lastRotate}.
   */
  record Run(
      String file,
      long lastStart,
      int lastSize,
      int events,
      long bytes,
      int transactions,
      boolean lastRotate,
      int frames) {}

  private static final int EVENT_TYPE_OFFSET = 4;

  private final EventLoop loop;
  private final String file;
  private final BinlogReader reader;
  private final ByteBuf buffer;
  private final Map<String, TailGroup> groups;
  private final TailGroups.Stats stats;
  private final List<Member> members = new ArrayList<>();
  private final ByteBuf[] framedBySequence = new ByteBuf[256];
  private CompletableFuture<Void> waiting;
  private boolean pumping;
  private boolean closed;

  /** Batches read, and member deliveries (for tests and the log). */
  private long batches;

  private long deliveries;

  private TailGroup(
      EventLoop loop,
      String file,
      BinlogReader reader,
      ByteBuf buffer,
      Map<String, TailGroup> groups,
      TailGroups.Stats stats) {
    this.loop = loop;
    this.file = file;
    this.reader = reader;
    this.buffer = buffer;
    this.groups = groups;
    this.stats = stats;
  }

  /**
   * A new group reading {@code store} from {@code at}, registered in {@code groups} (the loop's
   * groups by file) until it closes.
   */
  static TailGroup open(
      EventLoop loop,
      BinlogSource store,
      ServingConfig config,
      Position at,
      io.netty.buffer.ByteBufAllocator alloc,
      Map<String, TailGroup> groups,
      TailGroups.Stats stats)
      throws IOException {
    // Not registered for retention: every member keeps its own reader, registered in this file,
    // for as long as it is a member, and the group closes with its last member.
    BinlogReader reader =
        BinlogReader.open(
            store, at, config.readerOptions("shared tail of " + at.file()).withRegistry(null));
    ByteBuf buffer;
    try {
      buffer = alloc.directBuffer(config.maxBatchBytes(), config.maxBatchBytes());
    } catch (RuntimeException e) {
      reader.close();
      throw e;
    }
    TailGroup group = new TailGroup(loop, at.file(), reader, buffer, groups, stats);
    groups.put(at.file(), group);
    return group;
  }

  String file() {
    return file;
  }

  /** Where the group's next batch starts. */
  Position position() {
    return reader.position();
  }

  boolean closed() {
    return closed;
  }

  int size() {
    return members.size();
  }

  long batches() {
    return batches;
  }

  long deliveries() {
    return deliveries;
  }

  /**
   * Takes {@code member} in if it caught up at the group's position, after the group read what is
   * readable now; false if the positions differ (the member stays on its own).
   */
  boolean join(Member member, Position at) {
    if (closed || pumping) {
      return false;
    }
    if (!at.equals(reader.position()) && !members.isEmpty()) {
      pump(); // the store moved on and the group's wake-up has not run yet
    }
    if (closed || !at.equals(reader.position())) {
      return false;
    }
    members.add(member);
    await();
    return true;
  }

  /** {@code member} leaves on its own (it ended, or paused); it is not told. */
  void remove(Member member) {
    members.remove(member);
    if (members.isEmpty() && !pumping) {
      close();
    }
  }

  /** Reads and serves what is readable while there are members; waits when caught up. */
  private void pump() {
    if (pumping || closed) {
      return;
    }
    pumping = true;
    try {
      while (!members.isEmpty()) {
        Position before = reader.position();
        ReadResult result;
        try {
          result = reader.poll(buffer.nioBuffer(0, buffer.capacity()));
        } catch (IOException | RuntimeException e) {
          // the members read on their own from here and meet the failure as a single dump does
          dissolve(before, null);
          return;
        }
        if (result instanceof EventBatch batch) {
          try {
            if (!serve(batch, before)) {
              return;
            }
          } finally {
            batch.close();
          }
        } else if (result instanceof CaughtUp) {
          await();
          return;
        } else {
          dissolve(before, null); // the end of the file: rotation is each stream's own
          return;
        }
      }
    } finally {
      pumping = false;
      if (members.isEmpty() && !closed) {
        close();
      }
    }
  }

  /** Frames {@code batch} and hands it to every ready member; false if the group dissolved. */
  private boolean serve(EventBatch batch, Position before) {
    ByteBuffer memory = batch.inMemory();
    int[] sizes = batch.eventSizes();
    boolean frameable = memory != null && batch.start() > BinlogFileName.FIRST_EVENT_OFFSET;
    for (int i = 0; frameable && i < sizes.length; i++) {
      frameable = sizes[i] + 1L < PacketSequence.MAX_FRAME;
    }
    if (!frameable) {
      dissolve(before, null);
      return false;
    }
    for (Iterator<Member> it = members.iterator(); it.hasNext(); ) {
      Member member = it.next();
      if (!member.ready()) {
        it.remove();
        member.left(before, null);
      }
    }
    if (members.isEmpty()) {
      return false;
    }
    batches++;
    Run run = summary(batch, memory, sizes);
    List<ByteBuf> framed = new ArrayList<>(2);
    try {
      for (Member member : List.copyOf(members)) {
        int sequence = member.nextSequence();
        ByteBuf frames = framedBySequence[sequence];
        if (frames == null) {
          frames = frame(memory, sizes, sequence, batch.length());
          framedBySequence[sequence] = frames;
          framed.add(frames);
        }
        deliveries++;
        member.deliver(frames.retainedDuplicate(), run);
      }
    } finally {
      stats.served(members.size(), framed.size());
      for (ByteBuf frames : framed) {
        framedBySequence[frames.getUnsignedByte(3)] = null;
        frames.release();
      }
    }
    return true;
  }

  private Run summary(EventBatch batch, ByteBuffer memory, int[] sizes) {
    int transactions = 0;
    int at = 0;
    int lastType = 0;
    for (int size : sizes) {
      lastType = memory.get(at + EVENT_TYPE_OFFSET) & 0xff;
      if (startsTransaction(lastType)) {
        transactions++;
      }
      at += size;
    }
    int last = sizes[sizes.length - 1];
    return new Run(
        batch.file(),
        batch.end() - last,
        last,
        sizes.length,
        batch.length(),
        transactions,
        lastType == EventType.ROTATE.code(),
        sizes.length);
  }

  /**
   * The batch's events as packets starting at sequence id {@code first}: header, OK marker, event,
   * in one new buffer. Every event is below a frame's limit (checked by the caller).
   */
  private ByteBuf frame(ByteBuffer memory, int[] sizes, int first, long length) {
    int capacity = (int) length + sizes.length * (PacketSequence.HEADER + 1);
    ByteBuf out = buffer.alloc().directBuffer(capacity, capacity);
    ByteBuffer dst = out.nioBuffer(0, capacity).order(ByteOrder.LITTLE_ENDIAN);
    PacketSequence sequence = new PacketSequence(first);
    int w = 0;
    int at = 0;
    for (int size : sizes) {
      w = sequence.event(dst, w, memory, at, size);
      at += size;
    }
    out.writerIndex(w);
    return out;
  }

  /** Waits for the store to make more readable (once). */
  private void await() {
    if (waiting != null || closed) {
      return;
    }
    CompletableFuture<Void> wait = reader.whenReadable();
    waiting = wait;
    wait.whenComplete((ignored, failure) -> loop.execute(() -> readable(wait, failure)));
  }

  private void readable(CompletableFuture<Void> wait, Throwable failure) {
    if (closed || wait != waiting) {
      return;
    }
    waiting = null;
    if (failure != null) {
      dissolve(reader.position(), failure);
    } else {
      pump();
    }
  }

  /** Every member leaves at {@code at}; the group closes. */
  private void dissolve(Position at, Throwable waitFailure) {
    List<Member> leaving = List.copyOf(members);
    members.clear();
    close();
    for (Member member : leaving) {
      member.left(at, waitFailure);
    }
  }

  private void close() {
    if (closed) {
      return;
    }
    closed = true;
    waiting = null;
    groups.remove(file, this);
    reader.close();
    buffer.release();
  }

  private static boolean startsTransaction(int eventType) {
    return eventType == EventType.GTID.code()
        || eventType == EventType.ANONYMOUS_GTID.code()
        || eventType == EventType.GTID_TAGGED.code()
        || eventType == EventType.MARIADB_GTID.code();
  }

  @Override
  public String toString() {
    return "shared tail of " + file + " at " + (closed ? "-" : reader.position());
  }
}
