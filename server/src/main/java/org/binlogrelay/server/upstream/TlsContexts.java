package org.binlogrelay.server.upstream;

import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Turns a {@link TlsConfig} into the JDK's TLS objects: an {@link SSLContext} whose trust manager
 * checks the primary's chain against the CA ({@link TlsMode#VERIFY_CA}, {@link
 * TlsMode#VERIFY_IDENTITY}) or accepts any ({@link TlsMode#PREFERRED}, {@link TlsMode#REQUIRED}),
 * with the client certificate if one is configured; and the socket layered over the connected TCP
 * socket, with host name verification (the JDK's HTTPS rules: the subject alternative names) for
 * {@link TlsMode#VERIFY_IDENTITY}. Stateless.
 */
final class TlsContexts {
  private TlsContexts() {}

  /**
   * A TLS socket over {@code plain}, connected to {@code host}; the handshake is not started yet.
   */
  static SSLSocket layer(TlsConfig config, Socket plain, String host, int port) throws IOException {
    SSLContext context = context(config);
    SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, true);
    tls.setUseClientMode(true);
    if (config.mode() == TlsMode.VERIFY_IDENTITY) {
      SSLParameters params = tls.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      tls.setSSLParameters(params);
    }
    return tls;
  }

  static SSLContext context(TlsConfig config) throws IOException {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers(config), trustManagers(config), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IOException("TLS: cannot set up " + config + ": " + e.getMessage(), e);
    }
  }

  private static KeyManager[] keyManagers(TlsConfig config)
      throws IOException, GeneralSecurityException {
    if (config.cert() == null) {
      return null;
    }
    List<X509Certificate> chain = PemFiles.certificates(config.cert());
    PrivateKey key = PemFiles.privateKey(config.key());
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    char[] password = new char[0];
    store.setKeyEntry("relay", key, password, chain.toArray(new X509Certificate[0]));
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, password);
    return factory.getKeyManagers();
  }

  private static TrustManager[] trustManagers(TlsConfig config)
      throws IOException, GeneralSecurityException {
    if (!config.mode().verifiesCertificate()) {
      return new TrustManager[] {new AnyCertificate()};
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    if (config.ca() == null) {
      factory.init((KeyStore) null);
    } else {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (X509Certificate ca : PemFiles.certificates(config.ca())) {
        store.setCertificateEntry("ca-" + i++, ca);
      }
      factory.init(store);
    }
    return factory.getTrustManagers();
  }

  /**
   * PREFERRED and REQUIRED: encryption without authentication of the primary, as the MySQL client
   * does.
   */
  private static final class AnyCertificate extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
