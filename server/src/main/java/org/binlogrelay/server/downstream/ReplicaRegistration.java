package org.binlogrelay.server.downstream;

import java.util.Objects;
import org.binlogrelay.protocol.replication.RegisterReplicaCommand;

/**
 * COM_REGISTER_SLAVE, a replica announcing itself before it dumps ({@code SHOW REPLICAS} lists it):
 *
 * <pre>
 *   u8        0x15
 *   u32       server id
 *   u8 + str  host       report_host, often empty
 *   u8 + str  user       report_user
 *   u8 + str  password   report_password
 *   u16       port       report_port
 *   u32       replication rank   (unused, 0)
 *   u32       source id          (unused, 0)
 * </pre>
 *
 * Every string has a one-byte length, so the record is at most a few hundred bytes. The password is
 * not kept: only whether one was sent. The bytes are protocol's {@link RegisterReplicaCommand}.
 * Immutable.
 */
public record ReplicaRegistration(
    long serverId,
    String host,
    String user,
    boolean passwordSent,
    int port,
    long rank,
    long sourceId) {

  public ReplicaRegistration {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
  }

  /**
   * Decodes the packet payload including its command byte ({@link RegisterReplicaCommand}); {@link
   * org.binlogrelay.protocol.ProtocolException} if short.
   */
  public static ReplicaRegistration decode(byte[] payload) {
    RegisterReplicaCommand c = RegisterReplicaCommand.decode(payload);
    return new ReplicaRegistration(
        c.serverId(),
        c.host(),
        c.user(),
        !c.password().isEmpty(),
        c.port(),
        c.rank(),
        c.sourceId());
  }

  /** Encodes the payload (for tests); the password is sent empty. */
  public byte[] encode() {
    return new RegisterReplicaCommand(serverId, host, user, "", port, rank, sourceId).encode();
  }
}
