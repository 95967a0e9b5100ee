package org.binlogrelay.protocol.auth;

import java.util.Random;

/**
 * The 20-byte nonce ("scramble") sent in the handshake, made as MySQL's {@code generate_user_salt}
 * makes it: random bytes folded into 0x01..0x7F, never NUL (old clients read the second half as a C
 * string) and never {@code '$'}. Stateless; as thread-safe as the {@link Random} passed in ({@link
 * java.security.SecureRandom} is).
 */
public final class Scrambles {
  public static final int LENGTH = 20;

  private Scrambles() {}

  public static byte[] generate(Random random) {
    byte[] out = new byte[LENGTH];
    random.nextBytes(out);
    for (int i = 0; i < out.length; i++) {
      out[i] &= 0x7f;
      if (out[i] == 0 || out[i] == '$') {
        out[i]++;
      }
    }
    return out;
  }
}
