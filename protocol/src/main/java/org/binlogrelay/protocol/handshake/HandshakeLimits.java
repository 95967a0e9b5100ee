package org.binlogrelay.protocol.handshake;

/**
 * Hard limits on the variable-length fields of a {@link HandshakeResponse41}, checked before
 * anything is copied. The defaults are a little above what MySQL itself accepts: user names of 32
 * characters (up to 4 bytes each), database names of 64 characters, auth responses well above an
 * RSA-4096 cipher text, and MySQL's 64 KiB cap on connection attributes.
 *
 * @param maxUserNameBytes longest user name, in bytes
 * @param maxAuthResponseBytes longest initial auth response
 * @param maxDatabaseBytes longest database name
 * @param maxPluginNameBytes longest auth plugin name
 * @param maxConnectAttributesBytes longest connection attribute block (all pairs together)
 * @param maxConnectAttributes most key/value pairs
 */
public record HandshakeLimits(
    int maxUserNameBytes,
    int maxAuthResponseBytes,
    int maxDatabaseBytes,
    int maxPluginNameBytes,
    int maxConnectAttributesBytes,
    int maxConnectAttributes) {

  public static final HandshakeLimits DEFAULT = new HandshakeLimits(128, 2048, 256, 64, 65536, 256);

  public HandshakeLimits {
    if (maxUserNameBytes < 1
        || maxAuthResponseBytes < 0
        || maxDatabaseBytes < 0
        || maxPluginNameBytes < 1
        || maxConnectAttributesBytes < 0
        || maxConnectAttributes < 0) {
      throw new IllegalArgumentException(
          "handshake limits must not be negative (user name at least 1): " + this);
    }
  }
}
