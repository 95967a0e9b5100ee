package org.binlogrelay.bench.client;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import org.binlogrelay.protocol.ProtocolException;
import org.binlogrelay.protocol.auth.CachingSha2Hash;
import org.binlogrelay.protocol.auth.NativePasswordHash;
import org.binlogrelay.protocol.auth.RsaKeyPair;
import org.binlogrelay.protocol.handshake.AuthSwitchRequest;

/**
 * The client side of password authentication over plain TCP, after the handshake response:
 *
 * <pre>
 *   mysql_native_password   XOR(SHA1(pw), SHA1(scramble + SHA1(SHA1(pw))))
 *   caching_sha2_password   fast: XOR(SHA256(pw), SHA256(SHA256(SHA256(pw)) + scramble))
 *                           server 0x01 0x03 -> OK follows
 *                           server 0x01 0x04 -> client 0x02 (send the public key) -> server 0x01 PEM
 *                                            -> client RSA(XOR(pw + NUL, scramble))
 *   auth switch (0xFE)      start again with the named plugin and its new scramble
 * </pre>
 *
 * RSA padding follows MySQL's client: OAEP (SHA-1) for servers from 8.0.5 on, PKCS#1 v1.5 before.
 * TLS is not supported (benchmarks on loopback). Not thread-safe: one login.
 */
final class PasswordLogin {
  private static final byte REQUEST_PUBLIC_KEY = 0x02;
  private static final byte FAST_AUTH_SUCCESS = 0x03;
  private static final byte PERFORM_FULL_AUTHENTICATION = 0x04;

  private final String password;
  private final RsaKeyPair.Padding padding;
  private String plugin;
  private byte[] scramble;
  private boolean awaitingKey;

  PasswordLogin(String password, String plugin, byte[] scramble, String serverVersion) {
    this.password = password;
    this.plugin = plugin.isEmpty() ? NativePasswordHash.PLUGIN : plugin;
    this.scramble = scramble.clone();
    this.padding =
        oaep(serverVersion) ? RsaKeyPair.Padding.OAEP_SHA1 : RsaKeyPair.Padding.PKCS1_V15;
  }

  /** The plugin the first response is for. */
  String plugin() {
    return plugin;
  }

  /** The auth data of the handshake response. */
  byte[] firstResponse() {
    return scrambled();
  }

  /**
   * The answer to a server packet that is neither OK nor ERR.
   *
   * @return the packet to send, or {@code null} if the server's next packet must be read first
   */
  byte[] answer(byte[] packet) throws ProtocolException {
    int header = packet.length == 0 ? -1 : packet[0] & 0xff;
    if (header == AuthSwitchRequest.HEADER) {
      AuthSwitchRequest request = AuthSwitchRequest.decode(packet);
      plugin = request.pluginName();
      byte[] data = request.pluginData();
      int n = data.length > 0 && data[data.length - 1] == 0 ? data.length - 1 : data.length;
      scramble = Arrays.copyOf(data, n);
      return scrambled();
    }
    if (header != 0x01 || packet.length < 2) {
      throw new ProtocolException(
          "unexpected packet during authentication (first byte 0x"
              + Integer.toHexString(header)
              + ", "
              + packet.length
              + " bytes)");
    }
    if (awaitingKey) {
      awaitingKey = false;
      String pem = new String(packet, 1, packet.length - 1, StandardCharsets.US_ASCII);
      return encryptedPassword(pem);
    }
    if (packet.length == 2 && packet[1] == FAST_AUTH_SUCCESS) {
      return null;
    }
    if (packet.length == 2 && packet[1] == PERFORM_FULL_AUTHENTICATION) {
      awaitingKey = true;
      return new byte[] {REQUEST_PUBLIC_KEY};
    }
    throw new ProtocolException(
        "unexpected auth data of " + (packet.length - 1) + " bytes from plugin " + plugin);
  }

  private byte[] scrambled() {
    if (password.isEmpty()) {
      return new byte[0];
    }
    if (plugin.equals(NativePasswordHash.PLUGIN)) {
      return NativePasswordHash.scramble(password, Arrays.copyOf(scramble, 20));
    }
    if (plugin.equals(CachingSha2Hash.PLUGIN)) {
      return CachingSha2Hash.scramble(password, Arrays.copyOf(scramble, 20));
    }
    throw new ProtocolException(
        "the source asks for auth plugin '"
            + plugin
            + "'; relay-bench speaks "
            + NativePasswordHash.PLUGIN
            + " and "
            + CachingSha2Hash.PLUGIN
            + " only");
  }

  private byte[] encryptedPassword(String pem) {
    byte[] clear = password.getBytes(StandardCharsets.UTF_8);
    byte[] plain = Arrays.copyOf(clear, clear.length + 1);
    for (int i = 0; i < plain.length; i++) {
      plain[i] ^= scramble[i % scramble.length];
    }
    try {
      return RsaKeyPair.encrypt(pem, plain, padding);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw new ProtocolException(
          "cannot encrypt the password with the source's RSA public key: " + e.getMessage(), e);
    } finally {
      Arrays.fill(plain, (byte) 0);
    }
  }

  /**
   * MySQL's client uses OAEP from server 8.0.5 on; MariaDB and anything unparsable get OAEP as
   * well.
   */
  static boolean oaep(String serverVersion) {
    String[] parts = serverVersion.split("[.-]");
    try {
      int major = Integer.parseInt(parts[0]);
      int minor = Integer.parseInt(parts[1]);
      int patch = Integer.parseInt(parts[2].replaceAll("\\D.*", ""));
      return major > 8 || major == 8 && (minor > 0 || patch >= 5);
    } catch (RuntimeException e) {
      return true;
    }
  }
}
