package org.binlogrelay.protocol.gtid;

import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import org.binlogrelay.protocol.bytes.ByteReader;

/**
 * A MySQL GTID set: for each source UUID, for each tag ("" = untagged), the transaction numbers as
 * sorted, disjoint, non-adjacent intervals.
 *
 * <p>Text: {@link #toString()} prints byte for byte what MySQL prints for {@code @@gtid_executed}:
 * UUIDs in lower case, ascending by their bytes compared unsigned (= their text order); per UUID
 * the untagged intervals first, then each tag in ascending (ASCII) order; groups joined by {@code
 * ",\n"}; the empty set as "". Example: {@code
 * 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:11-18:taga:1-3,\n} {@code 4ab...:1}. {@link #parse}
 * accepts everything MySQL 9.7 accepts (see the grammar in {@code MysqlGtidSetParser}) except
 * reversed intervals such as {@code 5-3}, which MySQL ignores silently.
 *
 * <p>Binary: {@link #encode()} and {@link #decode} use the layout of PREVIOUS_GTIDS bodies and
 * COM_BINLOG_DUMP_GTID, laid out as described in {@code MysqlGtidSetCodec}: an 8-byte header (entry
 * count and format), then per (UUID, tag) the 16 UUID bytes, in the tagged format a length-prefixed
 * tag, an 8-byte interval count and each interval as 8-byte start and 8-byte exclusive end.
 *
 * <p>Cost: {@link #add} of the number after the last one of the same (UUID, tag) as the previous
 * add (the replication stream's case) is O(1) with no allocation.
 *
 * <p>Mutable and not thread-safe: one thread owns a set; hand others a {@link #copy()}.
 */
public final class MysqlGtidSet implements GtidSet {
  private final TreeMap<UUID, TreeMap<String, GnoIntervalList>> lists = new TreeMap<>(Uuids.ORDER);

  // The list the last add() went to, so a stream of GTIDs from one source skips both map lookups.
  private UUID lastSourceId;
  private String lastTag;
  private GnoIntervalList lastList;

  public static MysqlGtidSet empty() {
    return new MysqlGtidSet();
  }

  /**
   * Parses {@code @@gtid_executed} text (whitespace and newlines allowed); IllegalArgumentException
   * if malformed.
   */
  public static MysqlGtidSet parse(String text) {
    return MysqlGtidSetParser.parseSet(text);
  }

  /**
   * Decodes the binary form of PREVIOUS_GTIDS bodies and COM_BINLOG_DUMP_GTID, untagged or tagged,
   * reading exactly one set from the reader's position; ProtocolException if malformed.
   */
  public static MysqlGtidSet decode(ByteReader in) {
    return MysqlGtidSetCodec.decode(in);
  }

  /**
   * The binary form: the untagged encoding when no GTID has a tag, the tagged encoding otherwise.
   */
  public byte[] encode() {
    return MysqlGtidSetCodec.encode(this);
  }

  /** Adds one GTID; returns false if it was already present. */
  public boolean add(MysqlGtid gtid) {
    GnoIntervalList list = lastList;
    if (list == null || !gtid.sourceId().equals(lastSourceId) || !gtid.tag().equals(lastTag)) {
      list = listFor(gtid.sourceId(), gtid.tag());
      lastSourceId = gtid.sourceId();
      lastTag = gtid.tag();
      lastList = list;
    }
    return list.add(gtid.gno());
  }

  /** Adds {@code sourceId[:tag]:start-end}; returns false if all of it was already present. */
  public boolean addInterval(UUID sourceId, String tag, long start, long end) {
    Objects.requireNonNull(sourceId, "GTID source UUID");
    GtidInterval checked = new GtidInterval(start, end);
    return listFor(sourceId, GtidTag.normalize(tag)).add(checked.start(), checked.end());
  }

  /** Adds every GTID of {@code other} to this set (union in place). */
  public void addAll(MysqlGtidSet other) {
    for (Map.Entry<UUID, TreeMap<String, GnoIntervalList>> uuid : other.lists.entrySet()) {
      for (Map.Entry<String, GnoIntervalList> tag : uuid.getValue().entrySet()) {
        GnoIntervalList mine = find(uuid.getKey(), tag.getKey());
        if (mine == null) {
          put(uuid.getKey(), tag.getKey(), tag.getValue().copy());
        } else {
          mine.addAll(tag.getValue());
        }
      }
    }
  }

  /** Removes one GTID; returns false if it was not present. */
  public boolean remove(MysqlGtid gtid) {
    TreeMap<String, GnoIntervalList> tags = lists.get(gtid.sourceId());
    GnoIntervalList list = tags == null ? null : tags.get(gtid.tag());
    if (list == null || !list.remove(gtid.gno(), gtid.gno())) {
      return false;
    }
    if (list.isEmpty()) {
      tags.remove(gtid.tag());
      if (tags.isEmpty()) {
        lists.remove(gtid.sourceId());
      }
      lastList = null;
    }
    return true;
  }

  /** Removes every GTID of {@code other} from this set (subtraction in place). */
  public void removeAll(MysqlGtidSet other) {
    for (Map.Entry<UUID, TreeMap<String, GnoIntervalList>> uuid : other.lists.entrySet()) {
      TreeMap<String, GnoIntervalList> mine = lists.get(uuid.getKey());
      if (mine == null) {
        continue;
      }
      for (Map.Entry<String, GnoIntervalList> tag : uuid.getValue().entrySet()) {
        GnoIntervalList list = mine.get(tag.getKey());
        if (list != null) {
          list.removeAll(tag.getValue());
          if (list.isEmpty()) {
            mine.remove(tag.getKey());
          }
        }
      }
      if (mine.isEmpty()) {
        lists.remove(uuid.getKey());
      }
    }
    lastList = null;
  }

  /** A new set holding the GTIDs of both sets. */
  public MysqlGtidSet union(MysqlGtidSet other) {
    MysqlGtidSet out = copy();
    out.addAll(other);
    return out;
  }

  /** A new set holding the GTIDs of this set that are not in {@code other}. */
  public MysqlGtidSet subtract(MysqlGtidSet other) {
    MysqlGtidSet out = new MysqlGtidSet();
    forEach(
        (uuid, tag, list) -> {
          GnoIntervalList theirs = other.find(uuid, tag);
          GnoIntervalList rest =
              theirs == null ? list.copy() : GnoIntervalList.subtract(list, theirs);
          if (!rest.isEmpty()) {
            out.put(uuid, tag, rest);
          }
        });
    return out;
  }

  /** A new set holding the GTIDs present in both sets. */
  public MysqlGtidSet intersection(MysqlGtidSet other) {
    MysqlGtidSet out = new MysqlGtidSet();
    forEach(
        (uuid, tag, list) -> {
          GnoIntervalList theirs = other.find(uuid, tag);
          if (theirs != null) {
            GnoIntervalList both = GnoIntervalList.intersection(list, theirs);
            if (!both.isEmpty()) {
              out.put(uuid, tag, both);
            }
          }
        });
    return out;
  }

  public boolean contains(MysqlGtid gtid) {
    GnoIntervalList list = find(gtid.sourceId(), gtid.tag());
    return list != null && list.contains(gtid.gno());
  }

  /**
   * True if every GTID of {@code other} is in this set; IllegalArgumentException for a MariaDB set.
   */
  @Override
  public boolean containsAll(GtidSet other) {
    if (!(other instanceof MysqlGtidSet mysql)) {
      throw new IllegalArgumentException(
          "cannot compare a MySQL GTID set with a " + other.flavor() + " one");
    }
    for (Map.Entry<UUID, TreeMap<String, GnoIntervalList>> uuid : mysql.lists.entrySet()) {
      for (Map.Entry<String, GnoIntervalList> tag : uuid.getValue().entrySet()) {
        GnoIntervalList mine = find(uuid.getKey(), tag.getKey());
        if (mine == null || !mine.containsAll(tag.getValue())) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MYSQL;
  }

  @Override
  public boolean isEmpty() {
    return lists.isEmpty();
  }

  /** True if any GTID carries a tag (then {@link #encode()} uses the tagged format). */
  public boolean hasTags() {
    for (TreeMap<String, GnoIntervalList> tags : lists.values()) {
      if (tags.size() > 1 || !tags.containsKey("")) {
        return true;
      }
    }
    return false;
  }

  /** How many GTIDs the set holds (can exceed a long: many sources each up to 2^63-2). */
  public BigInteger size() {
    BigInteger total = BigInteger.ZERO;
    for (TreeMap<String, GnoIntervalList> tags : lists.values()) {
      for (GnoIntervalList list : tags.values()) {
        total = total.add(BigInteger.valueOf(list.count()));
      }
    }
    return total;
  }

  /** The source UUIDs present, in MySQL's printing order. */
  public List<UUID> sourceIds() {
    return List.copyOf(lists.keySet());
  }

  /** The tags present for {@code sourceId} in printing order, "" (untagged) first if present. */
  public List<String> tags(UUID sourceId) {
    TreeMap<String, GnoIntervalList> tags = lists.get(sourceId);
    return tags == null ? List.of() : List.copyOf(tags.keySet());
  }

  /**
   * The intervals of {@code sourceId} with {@code tag} ("" for untagged), ascending; empty if none.
   */
  public List<GtidInterval> intervalsFor(UUID sourceId, String tag) {
    GnoIntervalList list = find(sourceId, GtidTag.normalize(tag));
    return list == null ? List.of() : list.intervals();
  }

  @Override
  public MysqlGtidSet copy() {
    MysqlGtidSet out = new MysqlGtidSet();
    forEach((uuid, tag, list) -> out.put(uuid, tag, list.copy()));
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MysqlGtidSet other && lists.equals(other.lists);
  }

  @Override
  public int hashCode() {
    return lists.hashCode();
  }

  /**
   * MySQL's own text for this set, e.g. {@code uuid:1-5:11-18:tag1:1-3,\nuuid2:7}; "" when empty.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<UUID, TreeMap<String, GnoIntervalList>> uuid : lists.entrySet()) {
      if (sb.length() > 0) {
        sb.append(",\n");
      }
      sb.append(uuid.getKey());
      for (Map.Entry<String, GnoIntervalList> tag : uuid.getValue().entrySet()) {
        sb.append(':');
        if (!tag.getKey().isEmpty()) {
          sb.append(tag.getKey()).append(':');
        }
        tag.getValue().appendTo(sb);
      }
    }
    return sb.toString();
  }

  /**
   * A visitor over (UUID, tag, intervals) in printing order, for the codec and the set operations.
   */
  interface ListVisitor {
    void visit(UUID sourceId, String tag, GnoIntervalList list);
  }

  /** Visits every (UUID, tag) list in printing order; visitors must not modify this set. */
  void forEach(ListVisitor visitor) {
    for (Map.Entry<UUID, TreeMap<String, GnoIntervalList>> uuid : lists.entrySet()) {
      for (Map.Entry<String, GnoIntervalList> tag : uuid.getValue().entrySet()) {
        visitor.visit(uuid.getKey(), tag.getKey(), tag.getValue());
      }
    }
  }

  /** Number of (UUID, tag) pairs with at least one interval. */
  int tsidCount() {
    int n = 0;
    for (NavigableMap<String, GnoIntervalList> tags : lists.values()) {
      n += tags.size();
    }
    return n;
  }

  /** The list for {@code sourceId} and normalised {@code tag}, or null. */
  GnoIntervalList find(UUID sourceId, String tag) {
    TreeMap<String, GnoIntervalList> tags = lists.get(sourceId);
    return tags == null ? null : tags.get(tag);
  }

  /**
   * Stores non-empty {@code list}, now owned by this set, under {@code sourceId} and normalised
   * {@code tag}.
   */
  void put(UUID sourceId, String tag, GnoIntervalList list) {
    assert !list.isEmpty() : "empty interval list";
    lists.computeIfAbsent(sourceId, k -> new TreeMap<>()).put(tag, list);
    lastList = null;
  }

  /**
   * The list for {@code sourceId} and normalised {@code tag}, created empty if missing; the caller
   * must add to it at once so no empty list stays in the map.
   */
  GnoIntervalList listFor(UUID sourceId, String tag) {
    return lists
        .computeIfAbsent(sourceId, k -> new TreeMap<>())
        .computeIfAbsent(tag, k -> new GnoIntervalList());
  }
}
