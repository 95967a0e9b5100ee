package org.binlogrelay.e2e.servers;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * What a test wants of one server. Immutable; the {@code with...} methods return a modified copy.
 *
 * <p>Every server gets binlogs on, {@code binlog_format=ROW}, {@code binlog_checksum=CRC32} and GTIDs on (see
 * {@link ServerOptions}); {@link #extraOptions()} come last on the command line, so they override those defaults,
 * for example {@code --binlog-checksum=NONE}.
 *
 * @param name a short name for logs and directories, such as {@code primary}
 * @param serverId the {@code server_id}; 0 lets the backend pick one unique in the JVM (below 1000)
 * @param maxBinlogSize {@code max_binlog_size} in bytes; 0 keeps the server's default (1 GiB)
 * @param extraOptions further {@code --option=value} arguments for the server
 */
public record ServerSpec(String name, ServerVersion version, int serverId, long maxBinlogSize,
                         List<String> extraOptions) {

    public ServerSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        if (!name.matches("[A-Za-z0-9_-]{1,32}")) {
            throw new IllegalArgumentException("Server name '" + name + "' must be 1-32 of [A-Za-z0-9_-]");
        }
        if (serverId < 0) {
            throw new IllegalArgumentException("Invalid server_id " + serverId + " for server " + name);
        }
        if (maxBinlogSize != 0 && (maxBinlogSize < 4096 || maxBinlogSize > 1L << 30)) {
            throw new IllegalArgumentException("Invalid max_binlog_size " + maxBinlogSize + " for server " + name
                    + ": must be 4096..1073741824");
        }
        extraOptions = List.copyOf(extraOptions);
        for (String option : extraOptions) {
            if (!option.startsWith("--")) {
                throw new IllegalArgumentException("Server option '" + option + "' for server " + name
                        + " must start with --");
            }
        }
    }

    public static ServerSpec of(ServerVersion version) {
        return new ServerSpec(version.flavor().name().toLowerCase(Locale.ROOT), version, 0, 0, List.of());
    }

    public static ServerSpec of(ServerFlavor flavor) {
        return of(ServerVersion.defaultFor(flavor));
    }

    public ServerFlavor flavor() {
        return version.flavor();
    }

    public ServerSpec named(String newName) {
        return new ServerSpec(newName, version, serverId, maxBinlogSize, extraOptions);
    }

    public ServerSpec withServerId(int newServerId) {
        return new ServerSpec(name, version, newServerId, maxBinlogSize, extraOptions);
    }

    public ServerSpec withMaxBinlogSize(long bytes) {
        return new ServerSpec(name, version, serverId, bytes, extraOptions);
    }

    /** Adds server options such as {@code --binlog-row-image=MINIMAL}. */
    public ServerSpec withOptions(String... options) {
        List<String> all = new ArrayList<>(extraOptions);
        all.addAll(List.of(options));
        return new ServerSpec(name, version, serverId, maxBinlogSize, all);
    }
}
