package org.binlogrelay.server.downstream;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

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
 * Every string has a one-byte length, so the record is at most a few hundred bytes. The password is not
 * kept: only whether one was sent. Immutable.
 */
public record ReplicaRegistration(long serverId, String host, String user, boolean passwordSent, int port,
    long rank, long sourceId) {

  public ReplicaRegistration {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
  }

  /** Decodes the packet payload including its command byte; {@link org.binlogrelay.protocol.ProtocolException} if short. */
  public static ReplicaRegistration decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    in.skip(1, "COM_REGISTER_SLAVE command");
    long serverId = in.u32("COM_REGISTER_SLAVE server id");
    String host = in.string(in.u8("COM_REGISTER_SLAVE host length"), "COM_REGISTER_SLAVE host");
    String user = in.string(in.u8("COM_REGISTER_SLAVE user length"), "COM_REGISTER_SLAVE user");
    int passwordLength = in.u8("COM_REGISTER_SLAVE password length");
    in.skip(passwordLength, "COM_REGISTER_SLAVE password");
    int port = in.u16("COM_REGISTER_SLAVE port");
    // MySQL reads the rank and source id only if present; so do we.
    long rank = in.remaining() >= 4 ? in.u32("COM_REGISTER_SLAVE rank") : 0;
    long sourceId = in.remaining() >= 4 ? in.u32("COM_REGISTER_SLAVE source id") : 0;
    return new ReplicaRegistration(serverId, host, user, passwordLength > 0, port, rank, sourceId);
  }

  /** Encodes the payload (for tests); the password is sent empty. */
  public byte[] encode() {
    byte[] h = host.getBytes(StandardCharsets.UTF_8);
    byte[] u = user.getBytes(StandardCharsets.UTF_8);
    return new ByteWriter(32 + h.length + u.length)
        .u8(Command.COM_REGISTER_SLAVE.code())
        .u32(serverId)
        .u8(h.length).bytes(h)
        .u8(u.length).bytes(u)
        .u8(0)
        .u16(port)
        .u32(rank)
        .u32(sourceId)
        .toByteArray();
  }
}
