package org.binlogrelay.protocol.gtid;

import java.util.Objects;
import java.util.UUID;

/**
 * One MySQL transaction identifier: source UUID, optional tag (MySQL 8.3+; empty string when
 * untagged) and transaction number {@code gno}, printed {@code uuid:gno} or {@code uuid:tag:gno}
 * with the UUID in lower case.
 *
 * <p>The largest gno is {@link #MAX_GNO} = 2^63-2, not 2^63-1: MySQL keeps intervals end-exclusive
 * in a signed 64-bit integer, so 2^63-1 ({@code GNO_END}) can only be an exclusive end. Verified
 * against MySQL 9.7.4: {@code GTID_SUBTRACT('<uuid>:9223372036854775807','')} fails with "Interval
 * start out of range" while {@code ...:9223372036854775806} is accepted. Tags follow {@code
 * [a-z_][a-z0-9_]*}, at most 32 characters, and are lower-cased on construction (MySQL prints the
 * tag "tagA" as "taga").
 *
 * <p>Immutable and thread-safe.
 *
 * @param sourceId the originating server's {@code server_uuid}
 * @param tag the tag, normalised to lower case, or "" when untagged
 * @param gno the transaction number, 1 to {@link #MAX_GNO}
 */
public record MysqlGtid(UUID sourceId, String tag, long gno) {
  /** The largest transaction number MySQL accepts: 2^63-2. */
  public static final long MAX_GNO = Long.MAX_VALUE - 1;

  public MysqlGtid {
    Objects.requireNonNull(sourceId, "GTID source UUID");
    tag = GtidTag.normalize(tag);
    if (gno < 1 || gno > MAX_GNO) {
      throw new IllegalArgumentException(
          "GTID number " + gno + " for " + sourceId + " outside 1.." + MAX_GNO);
    }
  }

  /** An untagged GTID. */
  public MysqlGtid(UUID sourceId, long gno) {
    this(sourceId, "", gno);
  }

  /**
   * Parses {@code uuid:gno} or {@code uuid:tag:gno} (as in {@code SET gtid_next}); the UUID may be
   * in upper case, without dashes or in braces, and whitespace may surround each part. Throws
   * IllegalArgumentException saying what was expected where.
   */
  public static MysqlGtid parse(String text) {
    return MysqlGtidSetParser.parseGtid(text);
  }

  public boolean isTagged() {
    return !tag.isEmpty();
  }

  @Override
  public String toString() {
    return tag.isEmpty() ? sourceId + ":" + gno : sourceId + ":" + tag + ":" + gno;
  }
}
