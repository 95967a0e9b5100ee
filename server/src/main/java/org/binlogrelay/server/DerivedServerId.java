package org.binlogrelay.server;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32;

/**
 * The server_id a relay takes when none is configured: {@code 2130706432 + (CRC32(host name, NUL,
 * absolute data directory) mod 2^24)}, that is a number in 2130706432..2147483647
 * (0x7F000000..0x7FFFFFFF). The same host and data directory always give the same id, so a
 * restarted relay registers under the same id and keeps its server_uuid (derived from the id). The
 * range is the one the common "server_id from the IPv4 address" rule gives to 127.0.0.0/8, which no
 * real server uses, and it stays below 2^31 for tools that read server_id as a signed int. Two
 * relays collide with a probability of about one in 16 million; production relays should set {@code
 * --server-id} anyway (moving the data directory or renaming the host changes the derived id).
 * Stateless.
 */
final class DerivedServerId {
  static final long FIRST = 0x7F000000L;

  private DerivedServerId() {}

  /** The id for {@code hostName} and {@code dataDir}. */
  static long of(String hostName, Path dataDir) {
    CRC32 crc = new CRC32();
    crc.update(
        (hostName + "\0" + dataDir.toAbsolutePath().normalize()).getBytes(StandardCharsets.UTF_8));
    return FIRST + (crc.getValue() & 0xFFFFFF);
  }

  /**
   * This host's name as the kernel has it (not resolved through DNS, so it does not change with the
   * resolver).
   */
  static String hostName() {
    try {
      String name =
          Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
      if (!name.isEmpty()) {
        return name;
      }
    } catch (IOException | SecurityException e) {
      // not Linux: ask Java
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "localhost";
    }
  }
}
