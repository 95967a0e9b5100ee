package org.binlogrelay.protocol.handshake;

import java.util.HexFormat;

/**
 * Test side: packet payloads captured from real software on this machine (MySQL 9.7.4 server, its
 * mysql client, MariaDB Connector/C 3.3.20's mariadb client), both logging in as {@code test}
 * without TLS.
 */
final class RealHandshakes {
  private RealHandshakes() {}

  /** MySQL 9.7.4-2's greeting: connection id 35, caching_sha2_password. */
  static final byte[] MYSQL_97_GREETING =
      hex(
          "0a392e372e342d3200230000007874654f215e0b7700ffffff0200ffdf150000000000000000"
              + "00007d05131b141d54135b4875610063616368696e675f736861325f70617373776f726400");

  /**
   * MySQL 9.7.4's mysql client answering it (caching_sha2_password scramble, connection
   * attributes).
   */
  static final byte[] MYSQL_97_CLIENT_RESPONSE =
      hex(
          "85a2bf1900000001ff0000000000000000000000000000000000000000000000"
              + "74657374002027b52e4efb289d058835505a9d3f45411c573dfa82cf3f21f504db298e6b27e163616368696e675f736861325f7061"
              + "7373776f72640071045f7069640433333838095f706c6174666f726d067838365f3634035f6f73054c696e75780c5f636c69656e74"
              + "5f6e616d65086c69626d7973716c076f735f7573657204726f6f740f5f636c69656e745f76657273696f6e05392e372e340c70726f"
              + "6772616d5f6e616d65056d7973716c");

  /** MariaDB Connector/C 3.3.20 (the mariadb client) answering a MySQL 9.7 greeting. */
  static final byte[] MARIADB_CLIENT_RESPONSE =
      hex(
          "85a2bf0000001000210000000000000000000000000000000000000000000000"
              + "746573740020051aee5c128fdd8cf4cc949dfec26c6335d2a96b4b1cf312af55ab548037416963616368696e675f736861325f7061"
              + "7373776f7264007e035f6f73054c696e75780c5f636c69656e745f6e616d650a6c69626d617269616462045f70696404333434360f"
              + "5f636c69656e745f76657273696f6e06332e332e3230095f706c6174666f726d067838365f36340c70726f6772616d5f6e616d6505"
              + "6d7973716c0c5f7365727665725f686f7374093132372e302e302e31");

  static byte[] hex(String s) {
    return HexFormat.of().parseHex(s);
  }
}
