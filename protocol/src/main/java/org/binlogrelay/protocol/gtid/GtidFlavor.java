package org.binlogrelay.protocol.gtid;

/** The two GTID dialects a relay meets. */
public enum GtidFlavor {
  MYSQL,
  MARIADB
}
