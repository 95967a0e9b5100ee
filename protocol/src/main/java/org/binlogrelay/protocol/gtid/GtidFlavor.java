package org.binlogrelay.protocol.gtid;

/**
 * The two GTID dialects a relay meets, with the names they go by. Each layer turns this value into
 * its own {@code <Role>Flavor} class once, with {@code <Role>Flavor.of} (the table in
 * docs/protocol.md, "Flavours across the modules"); code outside those classes does not compare it.
 */
public enum GtidFlavor {
  MYSQL("MySQL", "mysql"),
  MARIADB("MariaDB", "mariadb");

  private final String productName;
  private final String id;

  GtidFlavor(String productName, String id) {
    this.productName = productName;
    this.id = id;
  }

  /** How the server names itself: "MySQL" or "MariaDB". */
  public String productName() {
    return productName;
  }

  /** The lower-case name of options and the admin API: "mysql" or "mariadb". */
  public String id() {
    return id;
  }
}
