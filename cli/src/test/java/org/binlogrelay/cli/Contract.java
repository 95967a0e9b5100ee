package org.binlogrelay.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Test side: the contract-shaped answers in {@code src/test/resources/contract/NAME.json} (docs/admin-api.md). */
final class Contract {
  private Contract() {
  }

  static String json(String name) {
    try (InputStream in = Contract.class.getResourceAsStream("/contract/" + name + ".json")) {
      if (in == null) {
        throw new IllegalArgumentException("no contract/" + name + ".json");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
