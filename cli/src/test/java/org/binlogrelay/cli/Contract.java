package org.binlogrelay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Test side: the contract-shaped answers in {@code docs/admin-api/NAME.json} (on the test classpath
 * as {@code /admin-api/NAME.json}), the same files the server's {@code AdminContractTest} checks
 * its answers against (docs/admin-api.md).
 */
final class Contract {
  private Contract() {}

  static String json(String name) {
    try (InputStream in = Contract.class.getResourceAsStream("/admin-api/" + name + ".json")) {
      if (in == null) {
        throw new IllegalArgumentException("no admin-api/" + name + ".json");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
