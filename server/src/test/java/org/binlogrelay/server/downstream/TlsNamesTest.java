package org.binlogrelay.server.downstream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Ssl_cipher in OpenSSL's names, as MySQL reports it. */
class TlsNamesTest {
  @Test
  void ianaNamesBecomeOpenSslNames() {
    assertThat(TlsNames.openSsl("TLS_AES_256_GCM_SHA384")).isEqualTo("TLS_AES_256_GCM_SHA384");
    assertThat(TlsNames.openSsl("TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"))
        .isEqualTo("ECDHE-RSA-AES256-GCM-SHA384");
    assertThat(TlsNames.openSsl("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))
        .isEqualTo("ECDHE-ECDSA-AES128-GCM-SHA256");
    assertThat(TlsNames.openSsl("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256"))
        .isEqualTo("ECDHE-RSA-CHACHA20-POLY1305");
    assertThat(TlsNames.openSsl("TLS_RSA_WITH_AES_128_GCM_SHA256")).isEqualTo("AES128-GCM-SHA256");
    assertThat(TlsNames.openSsl("TLS_DHE_RSA_WITH_AES_128_CBC_SHA"))
        .as("unknown: kept")
        .isEqualTo("TLS_DHE_RSA_WITH_AES_128_CBC_SHA");
    assertThat(TlsNames.openSsl(null)).isEmpty();
  }
}
