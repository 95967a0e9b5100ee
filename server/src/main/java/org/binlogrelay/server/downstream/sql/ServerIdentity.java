package org.binlogrelay.server.downstream.sql;

import java.util.Objects;
import org.binlogrelay.protocol.query.SqlParser;

/**
 * Who the relay says it is to replicas: the values behind {@code @@version}, {@code @@server_id},
 * {@code @@server_uuid}, {@code @@gtid_domain_id} and the limits clients read from variables.
 * Immutable.
 *
 * @param version the version string, e.g. {@code 9.7.4-binlog-relay}; clients parse it (MySQL
 *     clients choose RSA padding by it, MariaDB replicas look for "MariaDB" in it)
 * @param versionComment {@code @@version_comment}
 * @param serverId {@code @@server_id}; must differ from every replica's and from the primary's
 * @param serverUuid {@code @@server_uuid} (MySQL)
 * @param gtidDomainId {@code @@gtid_domain_id} (MariaDB)
 * @param maxAllowedPacket {@code @@max_allowed_packet}, also the packet limit the relay enforces
 * @param waitTimeoutSeconds {@code @@wait_timeout}, the idle limit of connections that are not
 *     dumping
 * @param hostname {@code @@hostname}
 * @param port {@code @@port}
 */
public record ServerIdentity(
    String version,
    String versionComment,
    long serverId,
    String serverUuid,
    long gtidDomainId,
    long maxAllowedPacket,
    long waitTimeoutSeconds,
    String hostname,
    int port) {

  public ServerIdentity {
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(versionComment, "versionComment");
    Objects.requireNonNull(serverUuid, "serverUuid");
    Objects.requireNonNull(hostname, "hostname");
    if (serverId < 0 || serverId > 0xffffffffL) {
      throw new IllegalArgumentException("server_id " + serverId + " outside 0..4294967295");
    }
  }

  /** The number executable comments compare against: 9.7.4 is 90704. */
  public int versionNumber() {
    return SqlParser.versionNumber(version);
  }
}
