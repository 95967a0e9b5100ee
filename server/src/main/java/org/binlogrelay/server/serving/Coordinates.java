package org.binlogrelay.server.serving;

/**
 * Where a dump stood when it failed, for the servers' {@code "; the first event '%s' at %lld, the
 * last event read from '%s' at %lld, the last byte read from '%s' at %lld."} suffix. Each flavour
 * picks its fields: MySQL names the end of the last event read (and the file as its index lists
 * it), MariaDB the start of the event it was reading (and bare file names). Immutable.
 *
 * @param startFile the file the replica asked for, as it asked ("" for the first file or a GTID
 *     start)
 * @param startPosition the position it asked for
 * @param lastFile the file of the last event read whole, null if none was
 * @param lastEventStart where that event starts (MariaDB: where the failing read started)
 * @param lastEventEnd where it ends
 * @param currentFile the file being read
 * @param bytePosition how far the file was read
 */
record Coordinates(
    String startFile,
    long startPosition,
    String lastFile,
    long lastEventStart,
    long lastEventEnd,
    String currentFile,
    long bytePosition) {}
