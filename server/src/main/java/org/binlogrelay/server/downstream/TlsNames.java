package org.binlogrelay.server.downstream;

import java.util.Locale;

/**
 * Cipher suite names as MySQL reports them in {@code Ssl_cipher}: OpenSSL's ({@code
 * ECDHE-RSA-AES256-GCM-SHA384}) rather than Java's IANA names ({@code
 * TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384}). TLS 1.3 suites have the same name in both. A suite this
 * does not know keeps its IANA name. Stateless.
 */
final class TlsNames {
  private TlsNames() {}

  static String openSsl(String iana) {
    if (iana == null) {
      return "";
    }
    int with = iana.indexOf("_WITH_");
    if (!iana.startsWith("TLS_") || with < 0) {
      return iana;
    }
    String exchange = iana.substring(4, with).replace("_", "-");
    String cipher = iana.substring(with + 6).toUpperCase(Locale.ROOT);
    String bulk;
    if (cipher.startsWith("AES_128_GCM_")) {
      bulk = "AES128-GCM-" + cipher.substring(12);
    } else if (cipher.startsWith("AES_256_GCM_")) {
      bulk = "AES256-GCM-" + cipher.substring(12);
    } else if (cipher.startsWith("CHACHA20_POLY1305_")) {
      bulk = "CHACHA20-POLY1305";
    } else {
      return iana;
    }
    return exchange.equals("RSA") ? bulk : exchange + "-" + bulk;
  }
}
