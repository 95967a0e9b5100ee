package org.binlogrelay.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.admin.AdminConfig;
import org.binlogrelay.server.downstream.schema.SchemaSourceConfig;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.retention.RetentionPolicy;

/**
 * Everything a {@link Relay} needs to run, as the command line or the configuration file gave it.
 * Immutable; {@link #toString()} hides the primary's and the schema source's passwords (through
 * {@link UpstreamConfig#toString()} and {@link SchemaSourceConfig#toString()}).
 *
 * @param dataDir the store's directory (created if missing)
 * @param flavor MySQL or MariaDB, {@code null} to detect it: from the stored files if there are
 *     any, else from the primary's greeting (see {@link FlavorDetection})
 * @param syncPolicy when stored bytes are forced to disk
 * @param retention which old files are removed
 * @param retentionInterval how often retention runs
 * @param upstream the primary to follow, {@code null} to only serve what is stored
 * @param downstream how replicas are served
 * @param detectionTimeout how long to keep trying to reach the primary when its flavour must be
 *     detected
 * @param admin the admin HTTP server ({@code /metrics}, {@code /api/v1}), {@code null} to serve
 *     none
 * @param schemaSource the server statements that read table schemas are forwarded to, {@code null}
 *     to refuse them (ER_NOT_SUPPORTED_YET)
 * @param archive the archive ({@code --archive}), {@code null} for none
 */
public record RelayConfig(
    Path dataDir,
    GtidFlavor flavor,
    SyncPolicy syncPolicy,
    RetentionPolicy retention,
    Duration retentionInterval,
    UpstreamConfig upstream,
    DownstreamSettings downstream,
    Duration detectionTimeout,
    AdminConfig admin,
    SchemaSourceConfig schemaSource,
    ArchiveConfig archive) {

  /**
   * Retention runs once a minute by default; MySQL purges at each rotation, which is rarer on a
   * busy primary.
   */
  public static final Duration DEFAULT_RETENTION_INTERVAL = Duration.ofMinutes(1);

  /** How long a first start keeps trying to reach the primary to learn its flavour. */
  public static final Duration DEFAULT_DETECTION_TIMEOUT = Duration.ofSeconds(60);

  /** A configuration without the admin HTTP server. */
  public RelayConfig(
      Path dataDir,
      GtidFlavor flavor,
      SyncPolicy syncPolicy,
      RetentionPolicy retention,
      Duration retentionInterval,
      UpstreamConfig upstream,
      DownstreamSettings downstream,
      Duration detectionTimeout) {
    this(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        null);
  }

  /** A configuration without a schema source. */
  public RelayConfig(
      Path dataDir,
      GtidFlavor flavor,
      SyncPolicy syncPolicy,
      RetentionPolicy retention,
      Duration retentionInterval,
      UpstreamConfig upstream,
      DownstreamSettings downstream,
      Duration detectionTimeout,
      AdminConfig admin) {
    this(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        admin,
        null);
  }

  /** A configuration without an archive. */
  public RelayConfig(
      Path dataDir,
      GtidFlavor flavor,
      SyncPolicy syncPolicy,
      RetentionPolicy retention,
      Duration retentionInterval,
      UpstreamConfig upstream,
      DownstreamSettings downstream,
      Duration detectionTimeout,
      AdminConfig admin,
      SchemaSourceConfig schemaSource) {
    this(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        admin,
        schemaSource,
        null);
  }

  /** The same configuration with {@code archiveConfig} ({@code null}: no archive). */
  public RelayConfig withArchive(ArchiveConfig archiveConfig) {
    return new RelayConfig(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        admin,
        schemaSource,
        archiveConfig);
  }

  /** The archive, if the relay has one. */
  public Optional<ArchiveConfig> archiveConfig() {
    return Optional.ofNullable(archive);
  }

  /** The same configuration with {@code adminConfig} ({@code null}: no admin server). */
  public RelayConfig withAdmin(AdminConfig adminConfig) {
    return new RelayConfig(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        adminConfig,
        schemaSource,
        archive);
  }

  /** The same configuration with {@code source} as the schema source ({@code null}: none). */
  public RelayConfig withSchemaSource(SchemaSourceConfig source) {
    return new RelayConfig(
        dataDir,
        flavor,
        syncPolicy,
        retention,
        retentionInterval,
        upstream,
        downstream,
        detectionTimeout,
        admin,
        source,
        archive);
  }

  public RelayConfig {
    Objects.requireNonNull(dataDir, "dataDir");
    Objects.requireNonNull(syncPolicy, "syncPolicy");
    Objects.requireNonNull(retention, "retention");
    Objects.requireNonNull(retentionInterval, "retentionInterval");
    Objects.requireNonNull(downstream, "downstream");
    Objects.requireNonNull(detectionTimeout, "detectionTimeout");
    if (retentionInterval.isNegative() || retentionInterval.isZero()) {
      throw new IllegalArgumentException(
          "retention interval must be positive, got " + retentionInterval);
    }
  }

  /** The primary, if the relay follows one. */
  public Optional<UpstreamConfig> primary() {
    return Optional.ofNullable(upstream);
  }
}
