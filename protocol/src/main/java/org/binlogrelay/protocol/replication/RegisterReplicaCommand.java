package org.binlogrelay.protocol.replication;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.bytes.ByteReader;
import org.binlogrelay.protocol.bytes.ByteWriter;

/**
 * COM_REGISTER_SLAVE, a replica announcing itself before it dumps ({@code SHOW REPLICAS} lists it).
 * The payload, command byte included, as MySQL and MariaDB read it:
 *
 * <pre>
 *   u8        0x15
 *   u32       server id
 *   u8 + str  host       report_host, often empty
 *   u8 + str  user       report_user
 *   u8 + str  password   report_password
 *   u16       port       report_port
 *   u32       replication rank   (ignored since MySQL 5.5, 0)
 *   u32       source id          (0: the server fills in its own)
 * </pre>
 *
 * Every string has a one-byte length, so the payload is at most a few hundred bytes; {@link
 * #encode} takes at most {@link #MAX_REPORT_FIELD} bytes per string, {@link #decode} whatever the
 * length byte says. The rank and source id are read only if present, as MySQL does. The one codec
 * for this command: the relay's upstream encodes it, the serving side decodes it. Immutable.
 *
 * @param serverId the replica's server id, 0 to 2^32 - 1
 * @param host report_host
 * @param user report_user
 * @param password report_password
 * @param port report_port, 0 to 65535
 * @param rank replication rank
 * @param sourceId source id
 */
public record RegisterReplicaCommand(
    long serverId, String host, String user, String password, int port, long rank, long sourceId) {
  /** The command byte. */
  public static final int CODE = 0x15;

  /** The longest report host, user or password {@link #encode} writes. */
  public static final int MAX_REPORT_FIELD = 250;

  private static final String NAME = "COM_REGISTER_SLAVE";

  public RegisterReplicaCommand {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
    Commands.checkU32(serverId, NAME + " server id");
    Commands.checkU16(port, NAME + " port");
    Commands.checkU32(rank, NAME + " rank");
    Commands.checkU32(sourceId, NAME + " source id");
  }

  /** A replica's registration as the relay sends it: host and port only, rank and source id 0. */
  public static RegisterReplicaCommand of(long serverId, String host, int port) {
    return new RegisterReplicaCommand(serverId, host, "", "", port, 0, 0);
  }

  /**
   * The payload, command byte first.
   *
   * @throws IllegalArgumentException if the host, user or password is longer than {@link
   *     #MAX_REPORT_FIELD} bytes
   */
  public byte[] encode() {
    byte[] h = field(host, "report host");
    byte[] u = field(user, "report user");
    byte[] p = field(password, "report password");
    return new ByteWriter(18 + h.length + u.length + p.length)
        .u8(CODE)
        .u32(serverId)
        .u8(h.length)
        .bytes(h)
        .u8(u.length)
        .bytes(u)
        .u8(p.length)
        .bytes(p)
        .u16(port)
        .u32(rank)
        .u32(sourceId)
        .toByteArray();
  }

  /**
   * Decodes a payload including its command byte.
   *
   * @throws ProtocolException if it is not COM_REGISTER_SLAVE or is short
   */
  public static RegisterReplicaCommand decode(byte[] payload) {
    ByteReader in = new ByteReader(payload);
    Commands.expectCode(in, CODE, NAME);
    long serverId = in.u32(NAME + " server id");
    String host = in.string(in.u8(NAME + " host length"), NAME + " host");
    String user = in.string(in.u8(NAME + " user length"), NAME + " user");
    String password = in.string(in.u8(NAME + " password length"), NAME + " password");
    int port = in.u16(NAME + " port");
    long rank = in.remaining() >= 4 ? in.u32(NAME + " rank") : 0;
    long sourceId = in.remaining() >= 4 ? in.u32(NAME + " source id") : 0;
    return new RegisterReplicaCommand(serverId, host, user, password, port, rank, sourceId);
  }

  private static byte[] field(String value, String what) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > MAX_REPORT_FIELD) {
      throw new IllegalArgumentException(
          what
              + " '"
              + value
              + "' is "
              + bytes.length
              + " bytes; "
              + NAME
              + " takes at most "
              + MAX_REPORT_FIELD);
    }
    return bytes;
  }

  @Override
  public String toString() {
    return "RegisterReplicaCommand[serverId="
        + serverId
        + ", host="
        + host
        + ", user="
        + user
        + ", password="
        + (password.isEmpty() ? "" : "<hidden>")
        + ", port="
        + port
        + ", rank="
        + rank
        + ", sourceId="
        + sourceId
        + "]";
  }
}
