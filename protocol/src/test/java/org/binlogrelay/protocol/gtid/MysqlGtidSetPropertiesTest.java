package org.binlogrelay.protocol.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.binlogrelay.protocol.testing.RandomCases.check;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.junit.jupiter.api.Test;

/** The set algebra, the text and binary round trips, and a model check, on random sets. */
class MysqlGtidSetPropertiesTest {
  /**
   * Includes UUIDs whose first byte is >= 0x80, where Java's signed UUID order differs from
   * MySQL's.
   */
  private static final UUID[] UUIDS = {
    UUID.fromString("3e11fa47-71ca-11e1-9e33-c80aa9429562"),
    UUID.fromString("8fffffff-0000-0000-0000-000000000001"),
    UUID.fromString("0fffffff-0000-0000-0000-000000000002"),
    UUID.fromString("ffffffff-ffff-ffff-ffff-ffffffffffff"),
    UUID.fromString("00000000-0000-0000-8000-000000000000"),
  };

  private static final String[] TAGS = {"", "a", "tg1", "_x", "zeta_9"};

  /**
   * One interval of one (UUID, tag): {uuid index, tag index, start, end}; starts near MAX_GNO one
   * time in ten.
   */
  private static long[] piece(Random random) {
    long start =
        random.nextInt(10) == 0
            ? random.nextLong(MysqlGtid.MAX_GNO - 40, MysqlGtid.MAX_GNO + 1)
            : random.nextLong(1, 61);
    long len = random.nextLong(0, 13);
    return new long[] {
      random.nextInt(UUIDS.length),
      random.nextInt(TAGS.length),
      start,
      start + Math.min(MysqlGtid.MAX_GNO - start, len)
    };
  }

  private static List<long[]> pieces(Random random) {
    int n = random.nextInt(15);
    List<long[]> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(piece(random));
    }
    return out;
  }

  private static MysqlGtidSet set(Random random) {
    return build(pieces(random));
  }

  private static MysqlGtidSet build(List<long[]> pieces) {
    MysqlGtidSet set = MysqlGtidSet.empty();
    for (long[] p : pieces) {
      set.addInterval(UUIDS[(int) p[0]], TAGS[(int) p[1]], p[2], p[3]);
    }
    return set;
  }

  @Test
  void unionIsCommutative() {
    check(
        "unionIsCommutative",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          assertThat(a.union(b)).isEqualTo(b.union(a));
        });
  }

  @Test
  void unionIsAssociative() {
    check(
        "unionIsAssociative",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          MysqlGtidSet c = set(r);
          assertThat(a.union(b).union(c)).isEqualTo(a.union(b.union(c)));
        });
  }

  @Test
  void unionIsIdempotent() {
    check(
        "unionIsIdempotent",
        r -> {
          MysqlGtidSet a = set(r);
          assertThat(a.union(a)).isEqualTo(a);
          assertThat(a.intersection(a)).isEqualTo(a);
        });
  }

  @Test
  void bothSidesAreSubsetsOfTheUnion() {
    check(
        "bothSidesAreSubsetsOfTheUnion",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          MysqlGtidSet union = a.union(b);
          assertThat(union.containsAll(a)).isTrue();
          assertThat(union.containsAll(b)).isTrue();
        });
  }

  @Test
  void differenceIsDisjointFromWhatWasSubtracted() {
    check(
        "differenceIsDisjointFromWhatWasSubtracted",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          assertThat(a.subtract(b).intersection(b).isEmpty()).isTrue();
          assertThat(a.containsAll(a.subtract(b))).isTrue();
        });
  }

  @Test
  void subtractThenUnionRestores() {
    check(
        "subtractThenUnionRestores",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          assertThat(a.subtract(b).union(a.intersection(b))).isEqualTo(a);
          assertThat(a.subtract(b).union(b)).isEqualTo(a.union(b));
          assertThat(a.subtract(b).size().add(a.intersection(b).size())).isEqualTo(a.size());
        });
  }

  @Test
  void containsAllMeansNothingIsLeftOver() {
    check(
        "containsAllMeansNothingIsLeftOver",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          assertThat(a.containsAll(b)).isEqualTo(b.subtract(a).isEmpty());
          assertThat(a.union(b).containsAll(a.intersection(b))).isTrue();
        });
  }

  @Test
  void inPlaceOperationsMatchTheCopyingOnes() {
    check(
        "inPlaceOperationsMatchTheCopyingOnes",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet b = set(r);
          MysqlGtidSet added = a.copy();
          added.addAll(b);
          assertThat(added).isEqualTo(a.union(b));
          MysqlGtidSet removed = a.copy();
          removed.removeAll(b);
          assertThat(removed).isEqualTo(a.subtract(b));
          assertWellFormed(added);
          assertWellFormed(removed);
        });
  }

  @Test
  void textRoundTrips() {
    check(
        "textRoundTrips",
        r -> {
          MysqlGtidSet a = set(r);
          MysqlGtidSet parsed = MysqlGtidSet.parse(a.toString());
          assertThat(parsed).isEqualTo(a).hasSameHashCodeAs(a);
          assertThat(parsed.toString()).isEqualTo(a.toString());
        });
  }

  @Test
  void binaryRoundTrips() {
    check(
        "binaryRoundTrips",
        r -> {
          MysqlGtidSet a = set(r);
          byte[] bytes = a.encode();
          assertThat(bytes[7]).isEqualTo(a.hasTags() ? (byte) 1 : (byte) 0);
          ByteReader in = new ByteReader(bytes);
          assertThat(MysqlGtidSet.decode(in)).isEqualTo(a);
          assertThat(in.remaining()).isZero();
        });
  }

  @Test
  void messyTextInAnyOrderParsesToTheSameSet() {
    check(
        "messyTextInAnyOrderParsesToTheSameSet",
        random -> {
          List<long[]> pieces = pieces(random);
          List<long[]> shuffled = new ArrayList<>(pieces);
          Collections.shuffle(shuffled, random);
          StringBuilder text = new StringBuilder(random.nextBoolean() ? " ,\n" : "");
          for (long[] p : shuffled) {
            String uuid = UUIDS[(int) p[0]].toString();
            text.append(random.nextBoolean() ? uuid.toUpperCase(Locale.ROOT) : uuid).append(" :");
            if (p[1] != 0) {
              text.append(
                      random.nextBoolean()
                          ? TAGS[(int) p[1]].toUpperCase(Locale.ROOT)
                          : TAGS[(int) p[1]])
                  .append(": ");
            }
            text.append(p[2])
                .append(" - ")
                .append(p[3])
                .append(random.nextBoolean() ? ",\n " : " ,,");
          }
          assertThat(MysqlGtidSet.parse(text.toString())).isEqualTo(build(pieces));
        });
  }

  @Test
  void addAndContainsAgreeWithAModel() {
    check(
        "addAndContainsAgreeWithAModel",
        r -> {
          MysqlGtidSet set = MysqlGtidSet.empty();
          Set<MysqlGtid> model = new HashSet<>();
          int n = r.nextInt(81);
          for (int i = 0; i < n; i++) {
            MysqlGtid gtid =
                new MysqlGtid(
                    UUIDS[r.nextInt(UUIDS.length)],
                    TAGS[r.nextInt(TAGS.length)],
                    r.nextLong(1, 41));
            assertThat(set.add(gtid)).isEqualTo(model.add(gtid));
          }
          for (UUID uuid : UUIDS) {
            for (String tag : TAGS) {
              for (long gno = 1; gno <= 45; gno++) {
                MysqlGtid g = new MysqlGtid(uuid, tag, gno);
                assertThat(set.contains(g)).as("%s", g).isEqualTo(model.contains(g));
              }
            }
          }
          assertThat(set.size()).isEqualTo(BigInteger.valueOf(model.size()));
          assertWellFormed(set);
        });
  }

  @Test
  void truncatedOrCorruptedBytesNeverFailOtherwise() {
    check(
        "truncatedOrCorruptedBytesNeverFailOtherwise",
        300,
        random -> {
          byte[] bytes = set(random).encode();
          byte[] cut = Arrays.copyOf(bytes, random.nextInt(bytes.length));
          assertThatThrownBy(() -> MysqlGtidSet.decode(new ByteReader(cut)))
              .isInstanceOf(ProtocolException.class);
          byte[] corrupt = bytes.clone();
          corrupt[random.nextInt(corrupt.length)] ^= (byte) (1 << random.nextInt(8));
          try {
            assertWellFormed(MysqlGtidSet.decode(new ByteReader(corrupt)));
          } catch (ProtocolException expected) {
            // fine: corruption detected
          }
        });
  }

  /** Every (UUID, tag) has sorted, disjoint, non-adjacent, in-range, non-empty intervals. */
  private static void assertWellFormed(MysqlGtidSet set) {
    for (UUID uuid : set.sourceIds()) {
      for (String tag : set.tags(uuid)) {
        List<GtidInterval> intervals = set.intervalsFor(uuid, tag);
        assertThat(intervals).isNotEmpty();
        for (int i = 1; i < intervals.size(); i++) {
          assertThat(intervals.get(i).start()).isGreaterThan(intervals.get(i - 1).end() + 1);
        }
      }
    }
  }
}
