package org.binlogrelay.protocol.gtid;

import java.util.Comparator;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * Server UUIDs as MySQL handles them: 16 bytes stored big-endian (the canonical text's byte order),
 * and ordered by comparing those bytes unsigned, which is also the order of their lower-case text.
 * Note that {@link UUID#compareTo} compares signed halves and would put {@code 8...} before {@code
 * 0...}; use {@link #ORDER} instead. Stateless.
 */
final class Uuids {
  /** MySQL's order: unsigned byte-wise, as {@code memcmp} of the 16 bytes. */
  static final Comparator<UUID> ORDER =
      (a, b) -> {
        int c = Long.compareUnsigned(a.getMostSignificantBits(), b.getMostSignificantBits());
        return c != 0
            ? c
            : Long.compareUnsigned(a.getLeastSignificantBits(), b.getLeastSignificantBits());
      };

  private Uuids() {}

  static UUID read(ByteReader in, String what) {
    long msb = in.u64be(what);
    long lsb = in.u64be(what);
    return new UUID(msb, lsb);
  }

  static void write(ByteWriter out, UUID uuid) {
    out.u64be(uuid.getMostSignificantBits()).u64be(uuid.getLeastSignificantBits());
  }
}
