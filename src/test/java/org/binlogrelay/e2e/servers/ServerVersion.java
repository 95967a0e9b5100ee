package org.binlogrelay.e2e.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A server release series a test asks for, such as MySQL 9.7, and the Docker image that provides
 * it. Immutable.
 *
 * <p>The local backend has the series of {@link #local()} installed ({@link #MYSQL_9_7}, {@link
 * #MARIADB_10_11} and {@link #MARIADB_11_8}, see {@code scripts/provision-test-servers.sh}) and
 * refuses any other with a message; the Docker backend runs {@link #dockerImage()}: for those three
 * series the images {@code scripts/docker/build-images} builds on this machine ({@code
 * binlog-relay-ci/mysql:9.7}, {@code binlog-relay-ci/mariadb:10.11}, {@code
 * binlog-relay-ci/mariadb:11.8}, which honour the official images' contract), for others the
 * official image; a system property per series chooses another ({@link #dockerImageProperty()},
 * e.g. {@code -Dbinlogrelay.image.mysql-9.7=mysql:9.7} where a registry is reachable). {@link
 * #mariadbSeries()} is the MariaDB version matrix: what every MariaDB scenario runs against as its
 * primary.
 */
public record ServerVersion(ServerFlavor flavor, String series, String defaultDockerImage) {

  /**
   * Prefix of the system properties that choose a series' image ({@link #dockerImageProperty()}).
   */
  public static final String IMAGE_PROPERTY_PREFIX = "binlogrelay.image.";

  /**
   * Narrows {@link #mariadbSeries()}: a comma-separated list such as {@code 10.11} or {@code
   * 10.11,11.8}.
   */
  public static final String MARIADB_SERIES_PROPERTY = "binlogrelay.mariadb.series";

  public static final ServerVersion MYSQL_8_4 =
      new ServerVersion(ServerFlavor.MYSQL, "8.4", "mysql:8.4");
  public static final ServerVersion MYSQL_9_7 =
      new ServerVersion(ServerFlavor.MYSQL, "9.7", "binlog-relay-ci/mysql:9.7");
  public static final ServerVersion MARIADB_10_11 =
      new ServerVersion(ServerFlavor.MARIADB, "10.11", "binlog-relay-ci/mariadb:10.11");

  /**
   * MariaDB's current LTS: {@code binlog_legacy_event_pos=OFF} and {@code binlog_gtid_index=ON} by
   * default.
   */
  public static final ServerVersion MARIADB_11_8 =
      new ServerVersion(ServerFlavor.MARIADB, "11.8", "binlog-relay-ci/mariadb:11.8");

  public ServerVersion {
    Objects.requireNonNull(flavor, "flavor");
    Objects.requireNonNull(series, "series");
    Objects.requireNonNull(defaultDockerImage, "defaultDockerImage");
  }

  /**
   * The image the Docker backend runs for this series: the system property {@link
   * #dockerImageProperty()} if set, else {@link #defaultDockerImage()}.
   */
  public String dockerImage() {
    String chosen = System.getProperty(dockerImageProperty(), "");
    return chosen.isBlank() ? defaultDockerImage : chosen.strip();
  }

  /** {@code binlogrelay.image.mysql-9.7}, {@code binlogrelay.image.mariadb-11.8}, ... */
  public String dockerImageProperty() {
    return IMAGE_PROPERTY_PREFIX + flavor.name().toLowerCase(Locale.ROOT) + "-" + series;
  }

  /** The official image of this series on Docker Hub: {@code mysql:9.7}, {@code mariadb:11.8}. */
  public String officialDockerImage() {
    return flavor.name().toLowerCase(Locale.ROOT) + ":" + series;
  }

  /** Every series the harness knows, for parameterised tests. */
  public static List<ServerVersion> known() {
    return List.of(MYSQL_8_4, MYSQL_9_7, MARIADB_10_11, MARIADB_11_8);
  }

  /** The series both backends provide: the ones installed locally. */
  public static List<ServerVersion> local() {
    return List.of(MYSQL_9_7, MARIADB_10_11, MARIADB_11_8);
  }

  /**
   * The MariaDB series every MariaDB scenario runs for as its primary: 10.11 (the older LTS, Debian
   * 12's) and 11.8 (the current LTS), see {@link MariadbSeriesTest}. The system property {@value
   * #MARIADB_SERIES_PROPERTY} (Maven: {@code -Dbinlogrelay.mariadb.series=11.8}) narrows it to a
   * comma-separated list of these series, to run one column of the matrix.
   */
  public static List<ServerVersion> mariadbSeries() {
    List<ServerVersion> all = List.of(MARIADB_10_11, MARIADB_11_8);
    String chosen = System.getProperty(MARIADB_SERIES_PROPERTY, "");
    if (chosen.isBlank()) {
      return all;
    }
    List<ServerVersion> picked = new ArrayList<>();
    for (String series : chosen.split(",")) {
      picked.add(
          all.stream()
              .filter(v -> v.series().equals(series.strip()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "Invalid "
                              + MARIADB_SERIES_PROPERTY
                              + "='"
                              + chosen
                              + "': '"
                              + series.strip()
                              + "' is not one of "
                              + all)));
    }
    return List.copyOf(picked);
  }

  /**
   * MySQL 9.7 and the MariaDB series of {@link #mariadbSeries()}: the primaries of a scenario of
   * both flavours.
   */
  public static List<ServerVersion> matrix() {
    List<ServerVersion> all = new ArrayList<>(List.of(MYSQL_9_7));
    all.addAll(mariadbSeries());
    return List.copyOf(all);
  }

  /**
   * The series of a flavour that a test gets when it names only the flavour: MySQL 9.7, MariaDB
   * 10.11.
   */
  public static ServerVersion defaultFor(ServerFlavor flavor) {
    return flavor == ServerFlavor.MYSQL ? MYSQL_9_7 : MARIADB_10_11;
  }

  /**
   * Whether a version string reported by a server ({@code 9.7.4-2}, {@code
   * 10.11.19-MariaDB-0+deb12u1}) is of this series.
   */
  public boolean matches(String reportedVersion) {
    return reportedVersion.startsWith(series + ".");
  }

  @Override
  public String toString() {
    return flavor.displayName() + " " + series;
  }
}
