package org.binlogrelay.server.upstream;

/**
 * How the relay secures its connection to the primary, as {@code --ssl-mode} of the MySQL client
 * names it. With {@link #REQUIRED} and the verifying modes the relay never sends anything but the
 * TLS request in plain text: a primary that does not offer TLS is refused before authentication, so
 * the password is never encrypted with an RSA key fetched over an unauthenticated connection.
 */
public enum TlsMode {
  /** Plain TCP (the default, as a MySQL replication channel with {@code SOURCE_SSL=0}). */
  DISABLED,
  /** TLS if the primary offers it (certificate not checked), else plain TCP. */
  PREFERRED,
  /**
   * TLS, or no connection; the certificate is not checked (protects against eavesdropping, not
   * impersonation).
   */
  REQUIRED,
  /** TLS with the primary's certificate chain checked against the CA. */
  VERIFY_CA,
  /**
   * {@link #VERIFY_CA}, and the certificate must name the host the relay connects to (subject
   * alternative name).
   */
  VERIFY_IDENTITY;

  /** True if the relay refuses a primary without TLS. */
  public boolean requiresTls() {
    return this == REQUIRED || this == VERIFY_CA || this == VERIFY_IDENTITY;
  }

  /** True if the certificate chain is checked. */
  public boolean verifiesCertificate() {
    return this == VERIFY_CA || this == VERIFY_IDENTITY;
  }
}
