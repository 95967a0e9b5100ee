package org.binlogrelay.protocol.gtid;

/**
 * The two GTID dialects a relay meets, with the names they go by. Which flavour a relay, store or connection is
 * gets decided once from this value by each layer's {@code <Role>Flavor.of} (see docs/architecture.md, "Flavour
 * hierarchies"); code outside those classes does not compare it.
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
