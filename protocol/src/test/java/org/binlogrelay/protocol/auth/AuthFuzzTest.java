package org.binlogrelay.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import org.binlogrelay.protocol.testing.AllocationBudget;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fuzz targets for authentication (docs/fuzzing.md).
 *
 * <ul>
 *   <li>{@link #storedHash}: the stored password hashes of the user configuration ({@code *HEX},
 *       caching_sha2_password's {@code $A$NNN$salt digest} and its {@code 0x} hex form).
 *   <li>{@link #exchange}: the server side of both password plugins driven by fuzzed client
 *       packets.
 * </ul>
 */
class AuthFuzzTest {
  private static final String PASSWORD = "repl-pass";
  private static final int ROUNDS = Sha256Crypt.MIN_ROUNDS;
  private static final byte[] SCRAMBLE = Scrambles.generate(new Random(7));
  private static final CachingSha2Hash SHA2 =
      CachingSha2Hash.create(PASSWORD, ROUNDS, new Random(1));
  private static final NativePasswordHash NATIVE = NativePasswordHash.of(PASSWORD);
  private static final RsaKeyPair KEYS = RsaKeyPair.generate(1024, seeded());
  private static final RsaKeyPair.Padding PADDING = RsaKeyPair.Padding.OAEP_SHA1;

  /**
   * A correct answer of the client for the step it is in, chosen by these op codes in {@link
   * #exchange}.
   */
  private static final int FAST_SCRAMBLE = 0xff;

  private static final int CLEAR_PASSWORD = 0xfe;
  private static final int RSA_PASSWORD = 0xfd;
  private static final int NATIVE_SCRAMBLE = 0xfc;

  // ---- stored hashes ----

  static Stream<Arguments> storedHash() {
    List<String> seeds = new ArrayList<>();
    seeds.add(SHA2.storedForm());
    seeds.add(NATIVE.storedForm());
    seeds.add(NATIVE.storedForm().toLowerCase(Locale.ROOT));
    seeds.add(PasswordHashes.cachingSha2("x", 10_000, new Random(3)));
    // MySQL's own form: a salt of control characters, which only the 0x form can carry
    byte[] salt = new byte[20];
    for (int i = 0; i < salt.length; i++) {
      salt[i] = (byte) (1 + i * 5);
    }
    String digest = Sha256Crypt.digest(PASSWORD, salt, 5000);
    byte[] raw =
        ("$A$005$" + new String(salt, StandardCharsets.US_ASCII) + digest)
            .getBytes(StandardCharsets.US_ASCII);
    seeds.add("0x" + HexFormat.of().formatHex(raw).toUpperCase(Locale.ROOT));
    return seeds.stream().map(s -> arguments((Object) s.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * A stored hash from the configuration: parsed or refused with IllegalArgumentException only; a
   * parsed one names its plugin, prints a stored form that parses back to an equal credential, and
   * (caching_sha2) has a round count MySQL's format allows (1,000 to 4,095,000, a multiple of
   * 1,000), so verifying never fails for a hash that was accepted.
   */
  @MethodSource
  @FuzzTest
  void storedHash(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Credential credential;
    try {
      credential =
          AllocationBudget.of(1 << 16, 16, input.length)
              .check("Credential.parse", () -> Credential.parse(text));
    } catch (IllegalArgumentException refused) {
      assertThat(refused.getMessage()).isNotBlank();
      assertThat(refused.getMessage().length()).isLessThan(1024);
      return;
    }
    String stored = credential.storedForm();
    assertThat(Credential.parse(stored))
        .as("parse(storedForm(c)) for %s", stored)
        .isEqualTo(credential);
    assertThat(Credential.parse(stored).storedForm()).isEqualTo(stored);
    assertThat(credential.toString()).doesNotContain(stored);
    if (credential instanceof CachingSha2Hash sha2) {
      assertThat(sha2.pluginName()).isEqualTo(CachingSha2Hash.PLUGIN);
      assertThat(sha2.rounds())
          .as("rounds of %s", text)
          .isBetween(Sha256Crypt.MIN_ROUNDS, Sha256Crypt.MAX_ROUNDS);
      assertThat(sha2.rounds() % 1000).isZero();
      if (sha2.rounds() <= 2000) {
        assertThat(sha2.verifyPassword(PASSWORD.getBytes(StandardCharsets.UTF_8)))
            .isEqualTo(sha2.equals(SHA2));
      }
    } else {
      assertThat(credential.pluginName()).isEqualTo(NativePasswordHash.PLUGIN);
      assertThat(stored).matches("\\*[0-9A-F]{40}");
    }
  }

  // ---- exchanges ----

  static Stream<Arguments> exchange() {
    List<byte[]> seeds = new ArrayList<>();
    seeds.add(new byte[] {0b0100, (byte) NATIVE_SCRAMBLE}); // native, known account: accepted
    seeds.add(new byte[] {0b0101, (byte) FAST_SCRAMBLE, (byte) CLEAR_PASSWORD}); // sha2 over "TLS"
    seeds.add(
        new byte[] {
          0b0111, (byte) FAST_SCRAMBLE, 1, 2, (byte) RSA_PASSWORD
        }); // plain TCP, key request, RSA
    seeds.add(new byte[] {0b1101, (byte) FAST_SCRAMBLE}); // cache filled: fast path
    seeds.add(
        new byte[] {
          0b0001, 32, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
          23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 4, 'p', 'a', 's', 0
        }); // unknown account over TLS
    seeds.add(new byte[] {0b0101, 0}); // no password
    return seeds.stream().map(s -> arguments((Object) s));
  }

  /**
   * One login against a server-side plugin. The input:
   *
   * <pre>
   *   u8     flags: bit 0 caching_sha2_password (else mysql_native_password), bit 1 plain TCP (else TLS),
   *          bit 2 the account exists, bit 3 a full authentication already filled the fast-path cache
   *   ops    each the client's next packet: 0xff / 0xfe / 0xfd / 0xfc = the correct fast scramble, clear-text
   *          password, RSA-encrypted password or native scramble; any other byte n = the next n input bytes
   * </pre>
   *
   * Contract: the exchange answers every packet with more data, accept or reject, and nothing else
   * (no exception); after accept or reject, another packet is an IllegalStateException; it accepts
   * only an existing account and only after the client sent a correct answer; "using password: NO"
   * only for an empty first packet; the public key goes out only when asked for over plain TCP; and
   * a full authentication that succeeded makes the next login of the account take the fast path.
   */
  @MethodSource
  @FuzzTest
  void exchange(byte[] input) {
    if (input.length == 0) {
      return;
    }
    int flags = input[0] & 0xff;
    boolean sha2 = (flags & 1) != 0;
    boolean secure = (flags & 2) == 0;
    boolean known = (flags & 4) != 0;
    boolean cached = (flags & 8) != 0;
    Sha2FastAuthCache cache = new Sha2FastAuthCache(4);
    AuthPlugin plugin =
        sha2 ? new CachingSha2PasswordPlugin(KEYS, PADDING, cache) : new NativePasswordPlugin();
    Credential credential = known ? (sha2 ? SHA2 : NATIVE) : null;
    if (cached && sha2 && known) {
      cache.put(
          "repl@%", SHA2, CachingSha2Hash.fastDigest(PASSWORD.getBytes(StandardCharsets.UTF_8)));
    }
    AuthExchange exchange = plugin.begin(new AuthRequest("repl@%", credential, SCRAMBLE, secure));
    boolean sentCorrect = false;
    boolean askedForKey = false;
    boolean first = true;
    AuthStep step = null;
    int at = 1;
    while (at < input.length) {
      int op = input[at++] & 0xff;
      byte[] packet;
      switch (op) {
        case FAST_SCRAMBLE -> packet = CachingSha2Hash.scramble(PASSWORD, SCRAMBLE);
        case CLEAR_PASSWORD -> packet = (PASSWORD + "\0").getBytes(StandardCharsets.UTF_8);
        case RSA_PASSWORD -> packet = rsaPassword();
        case NATIVE_SCRAMBLE -> packet = NativePasswordHash.scramble(PASSWORD, SCRAMBLE);
        default -> {
          int n = Math.min(op, input.length - at);
          packet = Arrays.copyOfRange(input, at, at + n);
          at += n;
        }
      }
      boolean correct = op >= NATIVE_SCRAMBLE;
      sentCorrect |= correct;
      askedForKey |=
          packet.length == 1 && packet[0] == CachingSha2PasswordPlugin.REQUEST_PUBLIC_KEY;
      byte[] sent = packet;
      // RSA decryption and 1,000 rounds of SHA-256-crypt cost several MB of temporaries whatever
      // the packet
      // (about 10 MB for RSA under the fuzzing instrumentation)
      step =
          AllocationBudget.of(32 << 20, 16, packet.length)
              .check("AuthExchange.next", () -> exchange.next(sent));
      assertThat(step).isNotNull();
      if (step instanceof AuthStep.MoreData more) {
        byte[] data = more.data();
        boolean publicKey = data.length > 1;
        if (publicKey) {
          assertThat(new String(data, StandardCharsets.US_ASCII)).isEqualTo(KEYS.publicKeyPem());
          assertThat(sha2 && !secure && askedForKey)
              .as("public key sent unasked or over TLS")
              .isTrue();
        } else {
          assertThat(data).containsExactly(CachingSha2PasswordPlugin.PERFORM_FULL_AUTHENTICATION);
        }
        first = false;
        continue;
      }
      if (step instanceof AuthStep.Accept) {
        assertThat(known && sentCorrect)
            .as("accepted without the password (known=%s)", known)
            .isTrue();
      } else {
        AuthStep.Reject reject = (AuthStep.Reject) step;
        assertThat(reject.passwordUsed())
            .as("using password: NO for %s", Arrays.toString(packet))
            .isEqualTo(
                !(first && (packet.length == 0 || (sha2 && packet.length == 1 && packet[0] == 0))));
        assertThat(reject.reason()).doesNotContain(PASSWORD);
      }
      assertThatThrownBy(() -> exchange.next(new byte[0]))
          .isInstanceOf(IllegalStateException.class);
      break;
    }
    if (step instanceof AuthStep.Accept accept && sha2 && accept.moreDataBeforeOk() == null) {
      AuthExchange next = plugin.begin(new AuthRequest("repl@%", credential, SCRAMBLE, secure));
      AuthStep fast = next.next(CachingSha2Hash.scramble(PASSWORD, SCRAMBLE));
      assertThat(fast).as("the next login takes the fast path").isInstanceOf(AuthStep.Accept.class);
      assertThat(((AuthStep.Accept) fast).moreDataBeforeOk())
          .containsExactly(CachingSha2PasswordPlugin.FAST_AUTH_SUCCESS);
    }
  }

  private static byte[] rsaPassword() {
    byte[] plain = (PASSWORD + "\0").getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < plain.length; i++) {
      plain[i] ^= SCRAMBLE[i % SCRAMBLE.length];
    }
    try {
      return RsaKeyPair.encrypt(KEYS.publicKeyPem(), plain, PADDING);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static SecureRandom seeded() {
    try {
      SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
      random.setSeed(42);
      return random;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
