package org.binlogrelay.e2e.servers;

import java.util.List;
import java.util.Objects;

/**
 * A server release series a test asks for, such as MySQL 9.7, and the Docker image that provides it.
 *
 * <p>The local backend has exactly one series per flavour installed ({@link #MYSQL_9_7}, {@link #MARIADB_10_11},
 * see {@code scripts/provision-test-servers.sh}) and refuses any other with a message; the Docker backend runs
 * {@link #dockerImage()}.
 */
public record ServerVersion(ServerFlavor flavor, String series, String dockerImage) {

    public static final ServerVersion MYSQL_8_4 = new ServerVersion(ServerFlavor.MYSQL, "8.4", "mysql:8.4");
    public static final ServerVersion MYSQL_9_7 = new ServerVersion(ServerFlavor.MYSQL, "9.7", "mysql:9.7");
    public static final ServerVersion MARIADB_10_11 =
            new ServerVersion(ServerFlavor.MARIADB, "10.11", "mariadb:10.11");
    public static final ServerVersion MARIADB_11_4 = new ServerVersion(ServerFlavor.MARIADB, "11.4", "mariadb:11.4");

    public ServerVersion {
        Objects.requireNonNull(flavor, "flavor");
        Objects.requireNonNull(series, "series");
        Objects.requireNonNull(dockerImage, "dockerImage");
    }

    /** Every series the harness knows, for parameterised tests. */
    public static List<ServerVersion> known() {
        return List.of(MYSQL_8_4, MYSQL_9_7, MARIADB_10_11, MARIADB_11_4);
    }

    /** The series of a flavour that both backends provide: the one installed locally. */
    public static ServerVersion defaultFor(ServerFlavor flavor) {
        return flavor == ServerFlavor.MYSQL ? MYSQL_9_7 : MARIADB_10_11;
    }

    /**
     * Whether a version string reported by a server ({@code 9.7.4-2}, {@code 10.11.19-MariaDB-0+deb12u1}) is of
     * this series.
     */
    public boolean matches(String reportedVersion) {
        return reportedVersion.startsWith(series + ".");
    }

    @Override
    public String toString() {
        return flavor.displayName() + " " + series;
    }
}
