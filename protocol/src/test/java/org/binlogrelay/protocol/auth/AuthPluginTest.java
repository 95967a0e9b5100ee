package org.binlogrelay.protocol.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The server side of both password plugins, driven packet by packet as a client would. */
class AuthPluginTest {
  private static RsaKeyPair keys;
  private final Random random = new Random(5);
  private final byte[] scramble = Scrambles.generate(random);
  private final CachingSha2Hash repl = CachingSha2Hash.parse(CredentialTest.MYSQL_97_REPL);

  @BeforeAll
  static void makeKeys() {
    keys = RsaKeyPair.generate(2048, new SecureRandom());
  }

  private CachingSha2PasswordPlugin sha2(Sha2FastAuthCache cache) {
    return new CachingSha2PasswordPlugin(keys, RsaKeyPair.Padding.OAEP_SHA1, cache);
  }

  @Test
  void sha2FullAuthenticationOverTlsThenFastPath() {
    Sha2FastAuthCache cache = new Sha2FastAuthCache(10);
    AuthExchange first = sha2(cache).begin(new AuthRequest("repl@%", repl, scramble, true));
    assertThat(more(first.next(CachingSha2Hash.scramble("repl-pass", scramble))))
        .containsExactly(4);
    assertThat(first.next(nulTerminated("repl-pass"))).isInstanceOf(AuthStep.Accept.class);
    assertThat(cache.size()).isEqualTo(1);

    byte[] nonce = Scrambles.generate(random);
    AuthExchange second = sha2(cache).begin(new AuthRequest("repl@%", repl, nonce, false));
    AuthStep step = second.next(CachingSha2Hash.scramble("repl-pass", nonce));
    assertThat(step).isInstanceOf(AuthStep.Accept.class);
    assertThat(((AuthStep.Accept) step).moreDataBeforeOk()).containsExactly(3);
    assertThatThrownBy(() -> second.next(new byte[1])).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void sha2FastPathWithAWrongPasswordFallsBackToFullAndFails() {
    Sha2FastAuthCache cache = new Sha2FastAuthCache(10);
    cache.put("repl@%", repl, CachingSha2Hash.fastDigest(CredentialTest.bytes("repl-pass")));
    AuthExchange e = sha2(cache).begin(new AuthRequest("repl@%", repl, scramble, true));
    assertThat(more(e.next(CachingSha2Hash.scramble("wrong", scramble)))).containsExactly(4);
    AuthStep step = e.next(nulTerminated("wrong"));
    assertThat(step).isEqualTo(new AuthStep.Reject(true, "wrong password (full authentication)"));
  }

  @Test
  void sha2RsaWithPublicKeyRequest() throws Exception {
    Sha2FastAuthCache cache = new Sha2FastAuthCache(10);
    AuthExchange e = sha2(cache).begin(new AuthRequest("repl@%", repl, scramble, false));
    assertThat(more(e.next(CachingSha2Hash.scramble("repl-pass", scramble)))).containsExactly(4);
    byte[] pem = more(e.next(new byte[] {2}));
    String publicKey = new String(pem, StandardCharsets.US_ASCII);
    assertThat(publicKey)
        .startsWith("-----BEGIN PUBLIC KEY-----\n")
        .endsWith("-----END PUBLIC KEY-----\n");
    byte[] cipher =
        RsaKeyPair.encrypt(
            publicKey, xor(nulTerminated("repl-pass"), scramble), RsaKeyPair.Padding.OAEP_SHA1);
    assertThat(e.next(cipher)).isInstanceOf(AuthStep.Accept.class);
    assertThat(cache.size()).isEqualTo(1);
  }

  @Test
  void sha2RsaWithAKeyTheClientAlreadyHas() throws Exception {
    AuthExchange e =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, false));
    e.next(CachingSha2Hash.scramble("repl-pass", scramble));
    byte[] cipher =
        RsaKeyPair.encrypt(
            keys.publicKeyPem(),
            xor(nulTerminated("repl-pass"), scramble),
            RsaKeyPair.Padding.OAEP_SHA1);
    assertThat(e.next(cipher)).isInstanceOf(AuthStep.Accept.class);
  }

  @Test
  void sha2RsaRefusesWrongPaddingWrongLengthAndWrongPassword() throws Exception {
    AuthExchange padding =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, false));
    padding.next(CachingSha2Hash.scramble("repl-pass", scramble));
    byte[] pkcs1 =
        RsaKeyPair.encrypt(
            keys.publicKeyPem(),
            xor(nulTerminated("repl-pass"), scramble),
            RsaKeyPair.Padding.PKCS1_V15);
    assertThat(padding.next(pkcs1)).isInstanceOf(AuthStep.Reject.class);

    AuthExchange length =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, false));
    length.next(CachingSha2Hash.scramble("repl-pass", scramble));
    assertThat(length.next(new byte[100]))
        .isEqualTo(new AuthStep.Reject(true, "RSA cipher text of 100 bytes, expected 256"));

    AuthExchange wrong =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, false));
    wrong.next(CachingSha2Hash.scramble("nope", scramble));
    byte[] cipher =
        RsaKeyPair.encrypt(
            keys.publicKeyPem(),
            xor(nulTerminated("nope"), scramble),
            RsaKeyPair.Padding.OAEP_SHA1);
    assertThat(wrong.next(cipher)).isInstanceOf(AuthStep.Reject.class);
  }

  @Test
  void sha2WithPkcs1PaddingForOldServerVersions() throws Exception {
    CachingSha2PasswordPlugin old =
        new CachingSha2PasswordPlugin(
            keys, RsaKeyPair.Padding.PKCS1_V15, new Sha2FastAuthCache(10));
    AuthExchange e = old.begin(new AuthRequest("repl@%", repl, scramble, false));
    e.next(CachingSha2Hash.scramble("repl-pass", scramble));
    byte[] cipher =
        RsaKeyPair.encrypt(
            keys.publicKeyPem(),
            xor(nulTerminated("repl-pass"), scramble),
            RsaKeyPair.Padding.PKCS1_V15);
    assertThat(e.next(cipher)).isInstanceOf(AuthStep.Accept.class);
  }

  @Test
  void sha2EmptyPasswordIsUsingPasswordNo() {
    AuthExchange e =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, true));
    assertThat(e.next(new byte[0])).isEqualTo(new AuthStep.Reject(false, "no password sent"));
    AuthExchange nul =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("repl@%", repl, scramble, true));
    assertThat(nul.next(new byte[] {0})).isEqualTo(new AuthStep.Reject(false, "no password sent"));
  }

  @Test
  void sha2UnknownAccountGoesThroughTheSameStepsAndFails() {
    AuthExchange e =
        sha2(new Sha2FastAuthCache(10)).begin(new AuthRequest("ghost@?", null, scramble, true));
    assertThat(more(e.next(CachingSha2Hash.scramble("x", scramble)))).containsExactly(4);
    assertThat(e.next(nulTerminated("x"))).isEqualTo(new AuthStep.Reject(true, "unknown account"));
  }

  @Test
  void sha2CacheEntryOfAnOldPasswordIsNotUsed() {
    Sha2FastAuthCache cache = new Sha2FastAuthCache(10);
    cache.put("repl@%", repl, CachingSha2Hash.fastDigest(CredentialTest.bytes("repl-pass")));
    CachingSha2Hash changed = CachingSha2Hash.create("new-pass", 5000, random);
    AuthExchange e = sha2(cache).begin(new AuthRequest("repl@%", changed, scramble, true));
    assertThat(more(e.next(CachingSha2Hash.scramble("repl-pass", scramble))))
        .as("old password: full path")
        .containsExactly(4);
  }

  @Test
  void sha2CacheIsBounded() {
    Sha2FastAuthCache cache = new Sha2FastAuthCache(1);
    cache.put("a", repl, new byte[32]);
    cache.put("b", repl, new byte[32]);
    assertThat(cache.size()).isEqualTo(1);
    assertThat(cache.get("b", repl)).isNull();
  }

  @Test
  void nativePassword() {
    NativePasswordPlugin plugin = new NativePasswordPlugin();
    NativePasswordHash hash = NativePasswordHash.of("nat-pass");
    assertThat(
            plugin
                .begin(new AuthRequest("n@%", hash, scramble, false))
                .next(NativePasswordHash.scramble("nat-pass", scramble)))
        .isInstanceOf(AuthStep.Accept.class);
    assertThat(
            plugin
                .begin(new AuthRequest("n@%", hash, scramble, false))
                .next(NativePasswordHash.scramble("bad", scramble)))
        .isEqualTo(new AuthStep.Reject(true, "wrong password"));
    assertThat(plugin.begin(new AuthRequest("n@%", hash, scramble, false)).next(new byte[0]))
        .isEqualTo(new AuthStep.Reject(false, "no password sent"));
    assertThat(
            plugin
                .begin(new AuthRequest("n@?", null, scramble, false))
                .next(NativePasswordHash.scramble("nat-pass", scramble)))
        .isEqualTo(new AuthStep.Reject(true, "unknown account"));
    assertThat(plugin.initialData(scramble)).hasSize(21).endsWith(0);
    assertThatThrownBy(() -> plugin.begin(new AuthRequest("r@%", repl, scramble, false)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rsaKeysReadPkcs8AndPkcs1Pem() {
    String pkcs8 = RsaKeyPair.Pem.encode("PRIVATE KEY", privateKeyDer());
    assertThat(RsaKeyPair.fromPrivateKeyPem(pkcs8).publicKeyPem()).isEqualTo(keys.publicKeyPem());
    String pkcs1 = RsaKeyPair.Pem.encode("RSA PRIVATE KEY", pkcs1Of(privateKeyDer()));
    assertThat(RsaKeyPair.fromPrivateKeyPem(pkcs1).publicKeyPem()).isEqualTo(keys.publicKeyPem());
    assertThatThrownBy(() -> RsaKeyPair.fromPrivateKeyPem("-----BEGIN CERTIFICATE-----"))
        .hasMessageContaining("BEGIN PRIVATE KEY");
  }

  private static byte[] privateKeyDer() {
    try {
      Field f = RsaKeyPair.class.getDeclaredField("privateKey");
      f.setAccessible(true);
      return ((PrivateKey) f.get(keys)).getEncoded();
    } catch (ReflectiveOperationException e) {
      throw new LinkageError(e.getMessage(), e);
    }
  }

  /** The PKCS#1 key inside a PKCS#8 PrivateKeyInfo: the content of its OCTET STRING. */
  private static byte[] pkcs1Of(byte[] pkcs8) {
    int at = 0;
    at = skipHeader(pkcs8, at); // SEQUENCE
    at = skipTlv(pkcs8, at); // INTEGER version
    at = skipTlv(pkcs8, at); // AlgorithmIdentifier
    int content = skipHeader(pkcs8, at); // OCTET STRING
    return Arrays.copyOfRange(pkcs8, content, pkcs8.length);
  }

  private static int skipHeader(byte[] der, int at) {
    int len = der[at + 1] & 0xff;
    return at + 2 + (len < 0x80 ? 0 : len & 0x7f);
  }

  private static int skipTlv(byte[] der, int at) {
    int first = der[at + 1] & 0xff;
    int length = first;
    int header = 2;
    if (first >= 0x80) {
      length = 0;
      for (int i = 0; i < (first & 0x7f); i++) {
        length = length << 8 | (der[at + 2 + i] & 0xff);
      }
      header += first & 0x7f;
    }
    return at + header + length;
  }

  private static byte[] more(AuthStep step) {
    assertThat(step).isInstanceOf(AuthStep.MoreData.class);
    return ((AuthStep.MoreData) step).data();
  }

  private static byte[] nulTerminated(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(b, b.length + 1);
  }

  private static byte[] xor(byte[] data, byte[] pattern) {
    byte[] out = data.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] ^= pattern[i % pattern.length];
    }
    return out;
  }
}
