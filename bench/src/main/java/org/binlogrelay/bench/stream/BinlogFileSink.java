package org.binlogrelay.bench.stream;

import java.io.IOException;

/**
 * Takes the bytes of the source's binlog files as a {@link FileRebuilder} rebuilds them from a dump
 * stream.
 */
public interface BinlogFileSink {
  /**
   * One event's bytes at their offset in the named file. Offsets of one file only grow; a jump
   * forward is a part the source did not send (a GTID dump skips transactions the replica has).
   *
   * @param file the source's file name
   * @param offset where the event starts in it (4 for the file's FORMAT_DESCRIPTION)
   * @param formatDescription whether this is the file's FORMAT_DESCRIPTION (the source may have
   *     cleared its in-use flag, see {@link SourceFileComparison})
   */
  void write(String file, long offset, byte[] b, int at, int length, boolean formatDescription)
      throws IOException;

  /** The file ended with a ROTATE or STOP: nothing more will be written to it. */
  void fileComplete(String file) throws IOException;
}
