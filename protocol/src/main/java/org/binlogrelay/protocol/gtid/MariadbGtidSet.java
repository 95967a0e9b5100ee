package org.binlogrelay.protocol.gtid;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A MariaDB GTID state, the way a binlog records it ({@code rpl_binlog_state}): for each
 * replication domain, the last sequence number logged by each server id, plus which of those GTIDs
 * was logged most recently (the domain's position). MariaDB numbers transactions per domain, so
 * "this state has reached GTID g" means the newest GTID of g's domain has a sequence number at
 * least g's.
 *
 * <p>Text, both checked against MariaDB 10.11: {@link #toString()} is {@code @@gtid_binlog_state}
 * (every domain-server entry) and {@link #toPositionString()} is {@code @@gtid_binlog_pos} (the
 * newest GTID of each domain). Domains come in ascending numeric order, entries joined by ','
 * without spaces, the empty state as "". Within a domain the newest GTID comes last, after the
 * domain's other servers in ascending server id order. (MariaDB prints those other servers in
 * hash-table order, which is not reproducible, so only that part of {@code @@gtid_binlog_state} may
 * differ; the content is the same.) GTID_LIST events list the same entries with the newest of each
 * domain last, which is why {@link #of} and {@link #parse} take the last entry of a domain as its
 * newest, as MariaDB does when it loads a state.
 *
 * <p>{@link #parse} accepts either form; {@link #parsePosition} accepts one GTID per domain only
 * and rejects a repeated domain with MariaDB's own wording (error 1943), as a master does for a
 * replica's {@code slave_connect_state}.
 *
 * <p>Mutable and not thread-safe: one thread owns a state; hand others a {@link #copy()}.
 */
public final class MariadbGtidSet implements GtidSet {
  /** Domain id (0..2^32-1, so the natural order is the unsigned order) to that domain's entries. */
  private final TreeMap<Long, Domain> domains = new TreeMap<>();

  public static MariadbGtidSet empty() {
    return new MariadbGtidSet();
  }

  /**
   * Parses {@code 0-1-100,1-2-5} ({@code @@gtid_binlog_pos}, {@code @@gtid_binlog_state} or a
   * connect state); whitespace around entries is allowed, empty text is the empty state. Entries
   * are applied in order, so the last entry of each domain becomes its newest.
   * IllegalArgumentException if malformed.
   */
  public static MariadbGtidSet parse(String text) {
    return of(split(text));
  }

  /**
   * Parses a position ({@code @@gtid_binlog_pos}, {@code gtid_slave_pos}, a replica's connect
   * state): like {@link #parse} but a domain may appear only once. IllegalArgumentException
   * otherwise, with the message MariaDB gives: {@code GTID 0-2-3 and 0-1-2 conflict (duplicate
   * domain id 0)}.
   */
  public static MariadbGtidSet parsePosition(String text) {
    MariadbGtidSet set = new MariadbGtidSet();
    for (MariadbGtid gtid : split(text)) {
      Domain domain = set.domains.get(gtid.domainId());
      if (domain != null) {
        throw new IllegalArgumentException(
            "GTID "
                + gtid
                + " and "
                + domain.newest
                + " conflict (duplicate domain id "
                + gtid.domainId()
                + ")");
      }
      set.add(gtid);
    }
    return set;
  }

  /**
   * Builds the state a GTID_LIST event carries: entries applied in order, so the last entry of a
   * domain becomes its newest.
   */
  public static MariadbGtidSet of(List<MariadbGtid> gtids) {
    MariadbGtidSet set = new MariadbGtidSet();
    for (MariadbGtid gtid : gtids) {
      set.add(gtid);
    }
    return set;
  }

  /**
   * Records {@code gtid} as the newest of its domain and of its domain-server pair, as MariaDB does
   * for every GTID it logs (even one whose sequence number is lower, which only non-strict mode
   * lets through). Returns false if {@code gtid} already was its domain's newest, so nothing
   * changed.
   */
  public boolean add(MariadbGtid gtid) {
    Objects.requireNonNull(gtid, "gtid");
    Domain domain = domains.computeIfAbsent(gtid.domainId(), id -> new Domain());
    if (gtid.equals(domain.newest)) {
      return false;
    }
    domain.byServer.put(gtid.serverId(), gtid);
    domain.newest = gtid;
    return true;
  }

  /**
   * True if this state has reached {@code gtid}: its domain's newest sequence number, or the last
   * one of its domain-server pair, is at least {@code gtid}'s (compared unsigned).
   */
  public boolean contains(MariadbGtid gtid) {
    Domain domain = domains.get(gtid.domainId());
    if (domain == null) {
      return false;
    }
    if (Long.compareUnsigned(domain.newest.seqNo(), gtid.seqNo()) >= 0) {
      return true;
    }
    MariadbGtid sameServer = domain.byServer.get(gtid.serverId());
    return sameServer != null && Long.compareUnsigned(sameServer.seqNo(), gtid.seqNo()) >= 0;
  }

  /** The newest GTID of {@code domainId}, if the domain is present. */
  public Optional<MariadbGtid> newest(long domainId) {
    Domain domain = domains.get(domainId);
    return domain == null ? Optional.empty() : Optional.of(domain.newest);
  }

  /** The full state, one entry per domain-server pair ({@code @@gtid_binlog_state} order). */
  public List<MariadbGtid> gtids() {
    List<MariadbGtid> out = new ArrayList<>();
    for (Domain domain : domains.values()) {
      for (MariadbGtid gtid : domain.byServer.values()) {
        if (gtid.serverId() != domain.newest.serverId()) {
          out.add(gtid);
        }
      }
      out.add(domain.newest);
    }
    return out;
  }

  /** The newest GTID of each domain, ascending by domain ({@code @@gtid_binlog_pos} order). */
  public List<MariadbGtid> positions() {
    List<MariadbGtid> out = new ArrayList<>(domains.size());
    for (Domain domain : domains.values()) {
      out.add(domain.newest);
    }
    return out;
  }

  /** The newest GTID per domain, as {@code @@gtid_binlog_pos} prints it. */
  public String toPositionString() {
    return join(positions());
  }

  /** Every domain-server entry, as {@code @@gtid_binlog_state} prints it. */
  @Override
  public String toString() {
    return join(gtids());
  }

  @Override
  public GtidFlavor flavor() {
    return GtidFlavor.MARIADB;
  }

  @Override
  public boolean isEmpty() {
    return domains.isEmpty();
  }

  /**
   * True if this state has reached every entry of {@code other} ({@link #contains} for each); an
   * IllegalArgumentException for a MySQL set.
   */
  @Override
  public boolean containsAll(GtidSet other) {
    if (!(other instanceof MariadbGtidSet mariadb)) {
      throw new IllegalArgumentException(
          "cannot compare a MariaDB GTID state with a " + other.flavor() + " one");
    }
    for (Domain domain : mariadb.domains.values()) {
      for (MariadbGtid gtid : domain.byServer.values()) {
        if (!contains(gtid)) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public MariadbGtidSet copy() {
    MariadbGtidSet out = new MariadbGtidSet();
    for (Map.Entry<Long, Domain> e : domains.entrySet()) {
      Domain copy = new Domain();
      copy.byServer.putAll(e.getValue().byServer);
      copy.newest = e.getValue().newest;
      out.domains.put(e.getKey(), copy);
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MariadbGtidSet other && domains.equals(other.domains);
  }

  @Override
  public int hashCode() {
    return domains.hashCode();
  }

  private static List<MariadbGtid> split(String text) {
    if (text == null) {
      throw new IllegalArgumentException("MariaDB GTID list is null");
    }
    List<MariadbGtid> out = new ArrayList<>();
    if (text.isBlank()) {
      return out;
    }
    for (String part : text.split(",", -1)) {
      if (part.isBlank()) {
        throw new IllegalArgumentException(
            "malformed MariaDB GTID list '"
                + MariadbGtid.quoted(text)
                + "': empty entry between commas");
      }
      out.add(MariadbGtid.parse(part));
    }
    return out;
  }

  private static String join(List<MariadbGtid> gtids) {
    StringBuilder sb = new StringBuilder();
    for (MariadbGtid gtid : gtids) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      sb.append(gtid);
    }
    return sb.toString();
  }

  /** One domain: the last GTID per server id (ascending), and the most recently added one. */
  private static final class Domain {
    final TreeMap<Long, MariadbGtid> byServer = new TreeMap<>();
    MariadbGtid newest;

    @Override
    public boolean equals(Object o) {
      return o instanceof Domain other
          && newest.equals(other.newest)
          && byServer.equals(other.byServer);
    }

    @Override
    public int hashCode() {
      return 31 * newest.hashCode() + byServer.hashCode();
    }
  }
}
