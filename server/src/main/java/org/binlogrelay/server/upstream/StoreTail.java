package org.binlogrelay.server.upstream;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.List;
import java.util.Optional;
import org.binlogrelay.protocol.event.EventHeader;
import org.binlogrelay.protocol.event.EventType;
import org.binlogrelay.storage.BinlogFileName;
import org.binlogrelay.storage.BinlogStore;
import org.binlogrelay.storage.FileMetadata;
import org.binlogrelay.storage.Position;

/**
 * What a connection needs to know about the end of a non-empty store: where it ends, which file
 * must come next, and which server wrote the last file (the {@code server_id} in its
 * FORMAT_DESCRIPTION: the primary's for a file copied from it, the relay's own for a file the relay
 * named, see {@link RelayFiles}). Immutable.
 *
 * @param end where the stored binlog ends: a transaction boundary (after {@link
 *     BinlogStore#startStream()})
 * @param nextFile the name of the file a stream of the relay's naming starts with: the one the last
 *     file's ROTATE named, else the last file's name with the next sequence number
 * @param writtenBy the server_id in the last file's FORMAT_DESCRIPTION
 */
record StoreTail(Position end, String nextFile, long writtenBy) {

  /**
   * Reads the tail of {@code store} on the writer's thread; empty when the store lists no file
   * although it resumes somewhere: recovery removed its only file (created just before a crash,
   * before its FORMAT_DESCRIPTION was complete), and the store knows only the name of the primary's
   * file it was fetching. Such a store holds no history yet and starts again from that file.
   *
   * @param resume what {@link BinlogStore#startStream()} returned
   */
  static Optional<StoreTail> read(BinlogStore store, Position resume) throws IOException {
    List<FileMetadata> files = store.files();
    if (files.isEmpty()) {
      return Optional.empty();
    }
    FileMetadata last = files.get(files.size() - 1);
    boolean sameFile = resume.file().equals(last.name());
    Position end = sameFile ? resume : new Position(last.name(), last.size());
    String next = sameFile ? BinlogFileName.next(last.name()) : resume.file();
    return Optional.of(new StoreTail(end, next, formatServerId(store, last.name())));
  }

  /** The server_id in the header of the FORMAT_DESCRIPTION at offset 4 of {@code name}. */
  private static long formatServerId(BinlogStore store, String name) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(EventHeader.SIZE);
    try (FileChannel ch = store.openFile(name)) {
      while (header.hasRemaining()) {
        if (ch.read(header, BinlogFileName.FIRST_EVENT_OFFSET + header.position()) < 0) {
          throw new EOFException(
              "stored "
                  + name
                  + " in "
                  + store.directory()
                  + " ends before its FORMAT_DESCRIPTION"
                  + " header");
        }
      }
    }
    EventHeader h = EventHeader.parse(header.array(), 0);
    if (h.type() != EventType.FORMAT_DESCRIPTION) {
      throw new IOException(
          "stored "
              + name
              + " in "
              + store.directory()
              + " starts with "
              + h.typeName()
              + ", not FORMAT_DESCRIPTION");
    }
    return h.serverId();
  }
}
