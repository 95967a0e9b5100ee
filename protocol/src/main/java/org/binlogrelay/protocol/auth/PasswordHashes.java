package org.binlogrelay.protocol.auth;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Random;

/**
 * Makes the stored forms of a password for the relay's user configuration, so that no password is
 * ever kept in clear: {@code caching_sha2_password} ({@code $A$00A$...}, MySQL 9.7's default 10,000
 * rounds) and {@code mysql_native_password} ({@code *HEX}).
 *
 * <p>From a shell, reading the password from standard input so it stays out of the shell history:
 *
 * <pre>
 *   printf '%s' 'repl-pass' | java -cp binlog-relay-protocol.jar org.binlogrelay.protocol.auth.PasswordHashes
 * </pre>
 *
 * Stateless and thread-safe.
 */
public final class PasswordHashes {
  private PasswordHashes() {}

  /** The caching_sha2_password hash of {@code password} with MySQL 9.7's default rounds. */
  public static String cachingSha2(String password) {
    return cachingSha2(password, CachingSha2Hash.DEFAULT_ROUNDS, new SecureRandom());
  }

  public static String cachingSha2(String password, int rounds, Random random) {
    return CachingSha2Hash.create(password, rounds, random).storedForm();
  }

  /**
   * The mysql_native_password hash of {@code password}, as MySQL 5.7's {@code PASSWORD()} printed
   * it.
   */
  public static String nativePassword(String password) {
    return NativePasswordHash.of(password).storedForm();
  }

  /** Reads one password line from stdin and prints both forms. */
  @SuppressWarnings(
      "OrphanedFormatString") // the usage text shows a shell printf '%s', not a Java format
  public static void main(String[] args) throws IOException {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String password = in.readLine();
    if (password == null || password.isEmpty()) {
      System.err.println(
          "PasswordHashes: give the password on standard input, e.g."
              + " printf '%s' 'secret' | java ... org.binlogrelay.protocol.auth.PasswordHashes");
      System.exit(2);
      return;
    }
    System.out.println("caching_sha2_password " + cachingSha2(password));
    System.out.println("mysql_native_password " + nativePassword(password));
  }
}
