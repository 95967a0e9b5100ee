package org.binlogrelay.protocol.event;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteWriter;
import org.binlogrelay.protocol.gtid.MariadbGtid;

/**
 * Test side: encodes event bodies (everything after the common header, before the checksum) from
 * the typed views, in the layouts the servers write, so that every parser can be round-tripped.
 */
final class EventBodies {
  /** MySQL 9.7's post-header table (types 1..42), as its FORMAT_DESCRIPTION writes it. */
  static final byte[] MYSQL_POST_HEADERS = postHeaders(RealEventBytes.MYSQL_FDE);

  /** MariaDB 10.11's post-header table (types 1..171). */
  static final byte[] MARIADB_POST_HEADERS = postHeaders(RealEventBytes.MARIADB_FDE);

  private EventBodies() {}

  private static byte[] postHeaders(byte[] fde) {
    return Arrays.copyOfRange(fde, 19 + 57, fde.length - 5);
  }

  /**
   * FORMAT_DESCRIPTION body up to and including the algorithm byte (the 4 checksum bytes are
   * separate).
   */
  static byte[] formatDescription(
      String version, long created, byte[] postHeaders, ChecksumAlgorithm alg) {
    byte[] v = new byte[50];
    byte[] text = version.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(text, 0, v, 0, text.length);
    ByteWriter w =
        new ByteWriter().u16(4).bytes(v).u32(created).u8(EventHeader.SIZE).bytes(postHeaders);
    if (alg != ChecksumAlgorithm.UNDEFINED) {
      w.u8(alg.code());
    }
    return w.toByteArray();
  }

  static byte[] query(QueryEvent q, int postHeaderLength) {
    byte[] db = q.database().getBytes(StandardCharsets.UTF_8);
    ByteWriter w =
        new ByteWriter()
            .u32(q.threadId())
            .u32(q.executionTime())
            .u8(db.length)
            .u16(q.errorCode())
            .u16(q.statusVariables().length);
    for (int i = QueryEvent.POST_HEADER_LENGTH; i < postHeaderLength; i++) {
      w.u8(0xee);
    }
    return w.bytes(q.statusVariables()).bytes(db).u8(0).bytes(q.queryBytes()).toByteArray();
  }

  static QueryEvent queryEvent(String db, String sql) {
    return new QueryEvent(
        7, 0, 0, new byte[] {0, 0, 0, 0, 0}, db, sql.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * GTID / ANONYMOUS_GTID fixed layout, every optional part written (original values only when they
   * differ).
   */
  static byte[] gtid(GtidEvent g) {
    ByteWriter w =
        new ByteWriter()
            .u8(g.flags())
            .u64be(g.sourceId().getMostSignificantBits())
            .u64be(g.sourceId().getLeastSignificantBits())
            .u64(g.gno())
            .u8(GtidEvent.LOGICAL_CLOCK_TYPECODE)
            .u64(g.lastCommitted())
            .u64(g.sequenceNumber());
    boolean bothTs = g.originalCommitTimestamp() != g.immediateCommitTimestamp();
    w.uint(g.immediateCommitTimestamp() | (bothTs ? GtidEvent.COMMIT_TIMESTAMP_FLAG : 0), 7);
    if (bothTs) {
      w.uint(g.originalCommitTimestamp(), 7);
    }
    w.lenencInt(g.transactionLength());
    boolean bothVersions = g.originalServerVersion() != g.immediateServerVersion();
    w.u32(g.immediateServerVersion() | (bothVersions ? GtidEvent.SERVER_VERSION_FLAG : 0));
    if (bothVersions) {
      w.u32(g.originalServerVersion());
    }
    if (g.commitGroupTicket() != 0) {
      w.u64(g.commitGroupTicket());
    }
    return w.toByteArray();
  }

  /** GTID_TAGGED body in MySQL's serialization format; optional fields written as MySQL does. */
  static byte[] taggedGtid(GtidEvent g) {
    SerializedWriter fields = new SerializedWriter();
    fields.unsigned(0).unsigned(g.flags());
    fields.unsigned(1);
    long hi = g.sourceId().getMostSignificantBits();
    long lo = g.sourceId().getLeastSignificantBits();
    for (int i = 0; i < 16; i++) {
      long half = i < 8 ? hi : lo;
      fields.unsigned((half >>> (56 - 8 * (i % 8))) & 0xff);
    }
    fields.unsigned(2).signed(g.gno());
    fields.unsigned(3).string(g.tag());
    fields.unsigned(4).signed(g.lastCommitted());
    fields.unsigned(5).signed(g.sequenceNumber());
    fields.unsigned(6).unsigned(g.immediateCommitTimestamp());
    if (g.originalCommitTimestamp() != g.immediateCommitTimestamp()) {
      fields.unsigned(7).unsigned(g.originalCommitTimestamp());
    }
    fields.unsigned(8).unsigned(g.transactionLength());
    fields.unsigned(9).unsigned(g.immediateServerVersion());
    if (g.originalServerVersion() != g.immediateServerVersion()) {
      fields.unsigned(10).unsigned(g.originalServerVersion());
    }
    if (g.commitGroupTicket() != 0) {
      fields.unsigned(11).unsigned(g.commitGroupTicket());
    }
    return serializedMessage(0, fields.toByteArray());
  }

  /**
   * Wraps message fields in the header: format version 1, total size, last non-ignorable field id.
   */
  static byte[] serializedMessage(long lastNonIgnorable, byte[] fields) {
    int headerWithoutSize =
        SerializedWriter.size(TaggedGtidDecoder.FORMAT_VERSION)
            + SerializedWriter.size(lastNonIgnorable);
    int total = headerWithoutSize + fields.length + 1;
    while (headerWithoutSize + fields.length + SerializedWriter.size(total) != total) {
      total = headerWithoutSize + fields.length + SerializedWriter.size(total);
    }
    return new SerializedWriter()
        .unsigned(TaggedGtidDecoder.FORMAT_VERSION)
        .unsigned(total)
        .unsigned(lastNonIgnorable)
        .raw(fields)
        .toByteArray();
  }

  static GtidEvent gtidEvent(EventType type, UUID uuid, String tag, long gno) {
    return new GtidEvent(
        type,
        0,
        uuid,
        tag,
        gno,
        41,
        42,
        1_795_319_847_879_723L,
        1_795_319_847_000_001L,
        284,
        90704,
        80400,
        0);
  }

  static byte[] xaPrepare(XaPrepareEvent x) {
    return new ByteWriter()
        .u8(x.onePhase() ? 1 : 0)
        .u32(x.formatId() & 0xffffffffL)
        .u32(x.gtridLength())
        .u32(x.bqualLength())
        .bytes(x.data())
        .toByteArray();
  }

  /**
   * TRANSACTION_PAYLOAD in MySQL's field order: compression type, uncompressed size, payload size,
   * end.
   */
  static byte[] transactionPayload(int compression, long uncompressedSize, byte[] payload) {
    ByteWriter w = new ByteWriter();
    field(w, TransactionPayloadEvent.COMPRESSION_TYPE_FIELD, compression);
    if (compression != TransactionPayloadEvent.NONE) {
      field(w, TransactionPayloadEvent.UNCOMPRESSED_SIZE_FIELD, uncompressedSize);
    }
    field(w, TransactionPayloadEvent.PAYLOAD_SIZE_FIELD, payload.length);
    return w.lenencInt(TransactionPayloadEvent.END_MARK).bytes(payload).toByteArray();
  }

  private static void field(ByteWriter w, int type, long value) {
    byte[] v = new ByteWriter().lenencInt(value).toByteArray();
    w.lenencInt(type).lenencInt(v.length).bytes(v);
  }

  static byte[] mariadbGtid(MariadbGtidEvent g) {
    ByteWriter w = new ByteWriter().u64(g.seqNo()).u32(g.domainId()).u8(g.flags());
    if (g.hasFlag(MariadbGtidEvent.FL_GROUP_COMMIT_ID)) {
      w.u64(g.commitId());
    }
    if (g.hasFlag(MariadbGtidEvent.FL_PREPARED_XA) || g.hasFlag(MariadbGtidEvent.FL_COMPLETED_XA)) {
      w.u32(g.xaFormatId() & 0xffffffffL)
          .u8(g.gtridLength())
          .u8(g.bqualLength())
          .bytes(g.xidData());
    }
    if (g.flagsExtra() != 0) {
      w.u8(g.flagsExtra());
      if ((g.flagsExtra() & MariadbGtidEvent.FL_EXTRA_MULTI_ENGINE) != 0) {
        w.u8(g.extraEngines());
      }
      if ((g.flagsExtra() & (MariadbGtidEvent.FL_COMMIT_ALTER | MariadbGtidEvent.FL_ROLLBACK_ALTER))
          != 0) {
        w.u64(g.startAlterSeqNo());
      }
    }
    while (w.size() < MariadbGtidEvent.POST_HEADER_LENGTH) {
      w.u8(0);
    }
    return w.toByteArray();
  }

  static byte[] gtidList(GtidListEvent list) {
    ByteWriter w = new ByteWriter().u32((list.flags() & 0xffffffffL) | list.gtids().size());
    for (MariadbGtid g : list.gtids()) {
      w.u32(g.domainId()).u32(g.serverId()).u64(g.seqNo());
    }
    return w.toByteArray();
  }

  static byte[] binlogCheckpoint(String file) {
    byte[] name = file.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter().u32(name.length).bytes(name).toByteArray();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
