package org.binlogrelay.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.archive.codec.ChunkCodec;
import org.binlogrelay.archive.codec.KeyFileException;
import org.binlogrelay.archive.codec.KeyRing;
import org.binlogrelay.archive.codec.ObjectEncoding;
import org.binlogrelay.archive.objectstore.S3Settings;
import org.binlogrelay.archive.upload.CatchUpDeferral;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.admin.AdminConfig;
import org.binlogrelay.server.downstream.ReplicaServerConfig;
import org.binlogrelay.server.downstream.account.UserAccounts;
import org.binlogrelay.server.downstream.schema.SchemaSourceConfig;
import org.binlogrelay.server.upstream.ServerEndpoint;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.TlsConfig;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.server.upstream.UpstreamConfig;
import org.binlogrelay.storage.SyncPolicy;
import org.binlogrelay.storage.retention.RetentionPolicy;
import org.binlogrelay.storage.tier.TieredBinlog;
import picocli.CommandLine.Option;

/**
 * The relay's command-line options (a picocli mixin of {@link RelayMain}), named after MySQL's own
 * options where one exists, and their translation into a {@link RelayConfig} ({@link #toConfig}).
 * Values that do not parse are refused by picocli with the converter's message; combinations that
 * do not fit, and files that cannot be read, are refused by {@link #toConfig}. Not thread-safe
 * (filled by picocli, then read once).
 */
public final class RelayOptions {
  /** The environment variable that may hold the primary's password. */
  public static final String PASSWORD_ENV = "BINLOG_RELAY_PRIMARY_PASSWORD";

  /** The environment variable that may hold the schema source's password. */
  public static final String SCHEMA_SOURCE_PASSWORD_ENV = "BINLOG_RELAY_SCHEMA_SOURCE_PASSWORD";

  static final int DEFAULT_PORT = 3307;
  static final int DEFAULT_PRIMARY_PORT = 3306;

  @Option(
      names = "--data-dir",
      paramLabel = "DIR",
      order = 10,
      defaultValue = "./relay-data",
      description = "The store's directory, created if missing (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(
      names = "--flavor",
      paramLabel = "mysql|mariadb",
      order = 11,
      converter = OptionConverters.FlavorConverter.class,
      description = {
        "MySQL or MariaDB. Default: from the stored binlogs, else from the primary's greeting at the"
            + " first start."
      })
  GtidFlavor flavor;

  @Option(
      names = "--sync-binlog",
      paramLabel = "POLICY",
      order = 12,
      defaultValue = "every-transaction",
      converter = OptionConverters.SyncPolicyConverter.class,
      description = {
        "When stored binlogs are forced to disk, like sync_binlog: every-transaction (or 1), N (every"
            + " N transactions), an interval (250ms, 2s), or off (or 0). Default: ${DEFAULT-VALUE}."
      })
  SyncPolicy syncBinlog;

  @Option(
      names = "--binlog-expire-logs-seconds",
      paramLabel = "SECONDS",
      order = 13,
      defaultValue = "0",
      description =
          "Remove stored files whose last event is older than this; 0 keeps them"
              + " (default: ${DEFAULT-VALUE}).")
  long expireLogsSeconds;

  @Option(
      names = "--max-binlog-total-size",
      paramLabel = "SIZE",
      order = 14,
      defaultValue = "0",
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "Remove the oldest stored files while they take more than this (500M, 20G); 0: no limit"
              + " (default: ${DEFAULT-VALUE}).")
  long maxTotalSize;

  @Option(
      names = "--primary",
      paramLabel = "HOST[:PORT]",
      order = 20,
      converter = OptionConverters.HostPortConverter.class,
      description =
          "The primary to follow (port 3306 if omitted). Without it the relay only serves what it stored.")
  HostPort primary;

  @Option(
      names = "--primary-user",
      paramLabel = "USER",
      order = 21,
      description = "User on the primary with REPLICATION SLAVE and REPLICATION CLIENT.")
  String primaryUser;

  @Option(
      names = "--primary-password",
      paramLabel = "PASSWORD",
      order = 22,
      arity = "0..1",
      interactive = true,
      prompt = "Password of the primary's user: ",
      description = {
        "Prompts for the primary's password. A value given here is visible to other users in ps:"
            + " prefer --primary-password-file or $"
            + PASSWORD_ENV
            + "."
      })
  String primaryPassword;

  @Option(
      names = "--primary-password-file",
      paramLabel = "FILE",
      order = 23,
      description = "File whose first line is the primary's password.")
  Path primaryPasswordFile;

  @Option(
      names = "--server-id",
      paramLabel = "ID",
      order = 24,
      description = {
        "The relay's server_id (1..4294967295), unique among the primary, its replicas and the relay's"
            + " replicas. Default: derived from the host name and --data-dir (see docs/running.md)."
      })
  Long serverId;

  @Option(
      names = "--report-host",
      paramLabel = "HOST",
      order = 25,
      defaultValue = "",
      description = "Host the primary lists for the relay in SHOW REPLICAS.")
  String reportHost;

  @Option(
      names = "--report-port",
      paramLabel = "PORT",
      order = 26,
      description = "Port the primary lists for the relay in SHOW REPLICAS (default: --port).")
  Integer reportPort;

  @Option(
      names = "--start",
      paramLabel = "WHERE",
      order = 27,
      defaultValue = "earliest",
      converter = OptionConverters.StartConverter.class,
      description = {
        "Where an empty store starts copying: earliest (the primary's oldest binlog), current,"
            + " gtid:SET (where a replica with these GTIDs would start) or file:NAME. A store that holds"
            + " anything continues where it ends. Default: ${DEFAULT-VALUE}."
      })
  StartPosition start;

  @Option(
      names = "--heartbeat-period",
      paramLabel = "DURATION",
      order = 28,
      defaultValue = "1s",
      converter = OptionConverters.DurationConverter.class,
      description =
          "Heartbeat the primary sends when idle; 3 silent periods mean the connection is dead"
              + " (default: ${DEFAULT-VALUE}).")
  Duration heartbeatPeriod;

  @Option(
      names = "--rpl-semi-sync-replica-enabled",
      paramLabel = "true|false",
      order = 29,
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description = {
        "Acknowledge each transaction to a semi-synchronous primary once it is durable in the store."
            + " A primary without semi-sync is followed asynchronously. Default: ${DEFAULT-VALUE}."
      })
  boolean semiSync;

  @Option(
      names = "--primary-ssl-mode",
      paramLabel = "MODE",
      order = 40,
      defaultValue = "disabled",
      converter = OptionConverters.TlsModeConverter.class,
      description = {
        "TLS to the primary, as the mysql client's --ssl-mode: disabled, preferred, required,"
            + " verify_ca or verify_identity. Default: ${DEFAULT-VALUE}."
      })
  TlsMode primarySslMode;

  @Option(
      names = "--primary-ssl-ca",
      paramLabel = "FILE",
      order = 41,
      description =
          "PEM CA certificate(s) the primary's certificate must lead to (verify_ca, verify_identity;"
              + " default: the JDK's trust store).")
  Path primarySslCa;

  @Option(
      names = "--primary-ssl-cert",
      paramLabel = "FILE",
      order = 42,
      description =
          "PEM client certificate for a primary that requires X509 (with --primary-ssl-key).")
  Path primarySslCert;

  @Option(
      names = "--primary-ssl-key",
      paramLabel = "FILE",
      order = 43,
      description = "PEM private key of --primary-ssl-cert, unencrypted.")
  Path primarySslKey;

  @Option(
      names = "--bind-address",
      paramLabel = "ADDRESS",
      order = 50,
      defaultValue = "127.0.0.1",
      description =
          "Address replicas connect to (default: ${DEFAULT-VALUE}; 0.0.0.0 for all IPv4 addresses).")
  String bindAddress;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      order = 51,
      defaultValue = "" + DEFAULT_PORT,
      description =
          "Port replicas connect to (default: ${DEFAULT-VALUE}, so that it does not clash with a MySQL"
              + " server on the same host).")
  int port;

  @Option(
      names = "--accounts-file",
      paramLabel = "FILE",
      order = 52,
      description =
          "Accounts replicas log in with: one 'user@host privileges hash' per line (see docs/running.md).")
  Path accountsFile;

  @Option(
      names = "--ssl-cert",
      paramLabel = "FILE",
      order = 53,
      description =
          "PEM certificate chain for TLS with replicas (MySQL 9 replicas require TLS). Without it, see"
              + " --auto-generate-certs.")
  Path sslCert;

  @Option(
      names = "--ssl-key",
      paramLabel = "FILE",
      order = 54,
      description = "PEM private key of --ssl-cert, unencrypted PKCS#8 ('BEGIN PRIVATE KEY').")
  Path sslKey;

  @Option(
      names = "--auto-generate-certs",
      paramLabel = "true|false",
      order = 54,
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "true",
      description = {
        "Without --ssl-cert, offer TLS with a self-signed certificate generated in memory at start, as"
            + " MySQL's auto_generate_certs and MariaDB 11.4+ (whose replicas and clients verify the server by default"
            + " and accept it through the password); its fingerprint is logged. false: no TLS without --ssl-cert"
            + " (default: ${DEFAULT-VALUE})."
      })
  boolean autoGenerateCerts;

  @Option(
      names = "--require-secure-transport",
      paramLabel = "true|false",
      order = 55,
      arity = "0..1",
      fallbackValue = "true",
      defaultValue = "false",
      description =
          "Refuse replicas that do not use TLS (needs --ssl-cert and --ssl-key, or --auto-generate-certs).")
  boolean requireSecureTransport;

  @Option(
      names = "--max-connections",
      paramLabel = "N",
      order = 56,
      defaultValue = "" + DownstreamSettings.DEFAULT_MAX_CONNECTIONS,
      description =
          "Connections to the replica port at once (replicas, SQL clients, connections still logging"
              + " in); more get error 1040 (Too many connections) before the greeting, as MySQL's max_connections"
              + " (default: ${DEFAULT-VALUE}).")
  int maxConnections;

  @Option(
      names = "--max-connect-rate-per-host",
      paramLabel = "N",
      order = 57,
      defaultValue = "0",
      description =
          "New connections a second one client host may open on average, in bursts of up to ten seconds'"
              + " worth; more get error 1040 (Too many connections) before the greeting, which replicas retry. Guards the"
              + " relay against a client reconnecting in a loop; 0: no limit, as MySQL (default: ${DEFAULT-VALUE}).")
  int maxConnectRatePerHost;

  @Option(
      names = "--replica-send-buffer",
      paramLabel = "SIZE",
      order = 58,
      defaultValue = "0",
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "Socket send buffer of each replica connection (64K, 1M); 0: sized by the operating system."
              + " A small buffer keeps what the relay counts as sent close to what the replica has read, so that the"
              + " per-replica bytes behind and catch-up ETA follow the replica; it limits throughput on links with a"
              + " long round trip (default: ${DEFAULT-VALUE}).")
  long replicaSendBuffer;

  @Option(
      names = "--serving-shared-batches",
      paramLabel = "on|off",
      order = 59,
      defaultValue = "on",
      description =
          "on: the replicas that caught up in the same file are served from one read and one framing of"
              + " each new batch (a replica whose connection is not writable, or that falls behind, reads on its own"
              + " again); off: every replica reads and frames its own (default: ${DEFAULT-VALUE}).")
  String servingSharedBatches;

  @Option(
      names = "--replica-io-threads",
      paramLabel = "N",
      order = 59,
      description =
          "Event loops (threads) that serve replica connections, 1..256. Each loop writes a new batch to its"
              + " caught-up replicas one after another, so more loops than cores shorten the tail of the fan-out"
              + " lag (default: 8, or twice the processors where that is more).")
  Integer replicaIoThreads;

  @Option(
      names = "--admin-port",
      paramLabel = "PORT",
      order = 60,
      defaultValue = "" + AdminConfig.DEFAULT_PORT,
      description =
          "HTTP port of /metrics, /health, /ready and the admin API (/api/v1); 0 turns it off"
              + " (default: ${DEFAULT-VALUE}).")
  int adminPort;

  @Option(
      names = "--admin-bind-address",
      paramLabel = "ADDRESS",
      order = 61,
      defaultValue = "127.0.0.1",
      description =
          "Address of the admin HTTP server (default: ${DEFAULT-VALUE}). Any other than a loopback"
              + " address needs --admin-token-file.")
  String adminBindAddress;

  @Option(
      names = "--admin-token-file",
      paramLabel = "FILE",
      order = 62,
      description =
          "File whose first line is the bearer token every admin request must carry (/health and /ready"
              + " excepted).")
  Path adminTokenFile;

  @Option(
      names = "--schema-source",
      paramLabel = "URL",
      order = 70,
      converter = OptionConverters.SourceUrlConverter.class,
      description = {
        "The server that answers statements reading table schemas (SHOW CREATE TABLE, SHOW FULL TABLES,"
            + " information_schema reads) for accounts with SCHEMA_READ, as mysql://USER[:PASSWORD]@HOST[:PORT]"
            + "[?ssl-mode=MODE&ssl-ca=FILE...] (or mariadb://): an account that can see the metadata, ideally with"
            + " nothing but REFERENCES. Default: none (such statements get error 1235)."
      })
  SourceUrl schemaSource;

  @Option(
      names = "--schema-source-password",
      paramLabel = "PASSWORD",
      order = 71,
      arity = "0..1",
      interactive = true,
      prompt = "Password of the schema source's user: ",
      description = {
        "Prompts for the schema source's password. A value given here is visible in ps: prefer"
            + " --schema-source-password-file or $"
            + SCHEMA_SOURCE_PASSWORD_ENV
            + "."
      })
  String schemaSourcePassword;

  @Option(
      names = "--schema-source-password-file",
      paramLabel = "FILE",
      order = 72,
      description = "File whose first line is the schema source's password.")
  Path schemaSourcePasswordFile;

  @Option(
      names = "--schema-source-timeout",
      paramLabel = "DURATION",
      order = 73,
      defaultValue = "5s",
      converter = OptionConverters.DurationConverter.class,
      description =
          "Bound on connecting to the schema source and on each answer from it; later, the client gets"
              + " error 1430 (default: ${DEFAULT-VALUE}).")
  Duration schemaSourceTimeout;

  @Option(
      names = "--schema-source-connections",
      paramLabel = "N",
      order = 74,
      defaultValue = "" + SchemaSourceConfig.DEFAULT_MAX_CONNECTIONS,
      description =
          "Connections to the schema source at most, opened on demand (default: ${DEFAULT-VALUE}).")
  int schemaSourceConnections;

  @Option(
      names = "--archive",
      paramLabel = "s3://BUCKET[/PREFIX]",
      order = 80,
      converter = OptionConverters.ArchiveLocationConverter.class,
      description = {
        "Archive every closed binlog to this S3 (or S3-compatible) bucket and prefix, serve archived"
            + " files back to replicas, and start an empty store where the archive ends. Credentials come"
            + " from the AWS SDK's default chain ($AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY, the"
            + " profile, a container or instance role), never from an option. Default: no archive."
      })
  ArchiveLocation archive;

  @Option(
      names = "--archive-endpoint",
      paramLabel = "URL",
      order = 81,
      converter = OptionConverters.EndpointConverter.class,
      description =
          "The S3-compatible server's URL, http(s)://HOST[:PORT] (MinIO, Ceph, ...). Default: AWS's"
              + " endpoint for the region.")
  URI archiveEndpoint;

  @Option(
      names = "--archive-region",
      paramLabel = "REGION",
      order = 82,
      description =
          "The bucket's region. Default: from the AWS SDK ($AWS_REGION, the profile, instance"
              + " metadata), else us-east-1 with --archive-endpoint.")
  String archiveRegion;

  @Option(
      names = "--archive-path-style",
      paramLabel = "true|false",
      order = 83,
      arity = "0..1",
      fallbackValue = "true",
      description =
          "Address the bucket as http://HOST/BUCKET/KEY instead of http://BUCKET.HOST/KEY (most"
              + " S3-compatible servers need it). Default: false.")
  Boolean archivePathStyle;

  @Option(
      names = "--archive-cache-bytes",
      paramLabel = "SIZE",
      order = 84,
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "The most bytes of archived files fetched back for readers kept in <data-dir>/archive/"
              + " (512M, 4G). Default: 4G.")
  Long archiveCacheBytes;

  @Option(
      names = "--archive-fetch-timeout",
      paramLabel = "DURATION",
      order = 85,
      converter = OptionConverters.DurationConverter.class,
      description =
          "How long a dump waits for an archived file to be fetched before it ends with error 1236."
              + " Default: 5m.")
  Duration archiveFetchTimeout;

  @Option(
      names = "--archive-retention",
      paramLabel = "DURATION",
      order = 86,
      converter = OptionConverters.DurationConverter.class,
      description =
          "Delete archived files whose last event is older than this (30d is 720h); 0 keeps them for"
              + " ever. Default: 0.")
  Duration archiveRetention;

  @Option(
      names = "--archive-upload-delay",
      paramLabel = "DURATION",
      order = 87,
      converter = OptionConverters.DurationConverter.class,
      description =
          "How long a closed file waits before its upload starts; e.g. 2m on the second of two relays"
              + " archiving one primary into one prefix, so that it finds the first one's upload. Default: 0.")
  Duration archiveUploadDelay;

  @Option(
      names = "--archive-multipart-threshold",
      paramLabel = "SIZE",
      order = 88,
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "Files of at least this size are uploaded in parts (at least 5M, S3's smallest part)."
              + " Default: 16M.")
  Long archiveMultipartThreshold;

  @Option(
      names = "--archive-max-upload-rate",
      paramLabel = "BYTES_PER_SECOND",
      order = 89,
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "The most bytes per second the archive's uploads send (e.g. 32M); 0 is unlimited. Keep it"
              + " above the primary's peak binlog rate. Default: 0.")
  Long archiveMaxUploadRate;

  @Option(
      names = "--archive-defer-while-behind",
      paramLabel = "DURATION",
      order = 89,
      converter = OptionConverters.DurationConverter.class,
      description =
          "While the relay is more than this behind its primary (catching up a backlog), uploads"
              + " wait, so that the catch-up is as fast as without an archive; they resume within 2s"
              + " of the primary. 0 turns waiting off. Default: 10s.")
  Duration archiveDeferWhileBehind;

  @Option(
      names = "--archive-defer-max-pending",
      paramLabel = "SIZE",
      order = 89,
      converter = OptionConverters.ByteSizeConverter.class,
      description =
          "The most bytes of closed files that wait for their upload during a catch-up; beyond,"
              + " uploads go on during it (keep it well below the disk's free space). Default: 4G.")
  Long archiveDeferMaxPending;

  @Option(
      names = "--archive-compression",
      paramLabel = "none|zstd[:LEVEL]",
      order = 90,
      description =
          "Compress each archived object with zstd (level 1-22, default 3), in 4 MiB chunks. Default:"
              + " none (the object is the binlog file as it is).")
  String archiveCompression;

  @Option(
      names = "--archive-encryption-key-file",
      paramLabel = "FILE",
      order = 91,
      description =
          "Encrypt each archived object with AES-256-GCM under this key: 32 raw bytes or 64 hex digits"
              + " (openssl rand -hex 32), mode 600. Keep a copy: without it the archive cannot be read."
              + " Default: not encrypted.")
  Path archiveEncryptionKeyFile;

  @Option(
      names = "--archive-encryption-key-id",
      paramLabel = "ID",
      order = 92,
      description =
          "The id written into each object encrypted with --archive-encryption-key-file (1-64 of"
              + " A-Z a-z 0-9 . _ -). Default: the first 16 hex digits of the key's SHA-256.")
  String archiveEncryptionKeyId;

  @Option(
      names = "--archive-decryption-keys",
      paramLabel = "DIR",
      order = 93,
      description =
          "A directory of older keys (one key file each) that decrypt objects archived before a key"
              + " change, found by key id. Default: none.")
  Path archiveDecryptionKeys;

  /**
   * The configuration these options describe.
   *
   * @param environment where {@link #PASSWORD_ENV} is looked up
   * @param warnings receives one line per doubtful but accepted choice (no accounts file, a
   *     password on the command line)
   * @throws IllegalArgumentException naming the option: a required option missing, options that do
   *     not fit together, a file that cannot be read or parsed
   */
  RelayConfig toConfig(Map<String, String> environment, List<String> warnings) {
    long id = serverId();
    InetSocketAddress bind = bindAddress();
    DownstreamSettings downstream =
        new DownstreamSettings(
            bind,
            id,
            UpstreamConfig.defaultReplicaUuid(id).toString(),
            accounts(warnings),
            tls(),
            autoGenerateCerts,
            requireSecureTransport,
            maxConnections(),
            maxConnectRatePerHost(),
            replicaSendBuffer(),
            servingSharedBatches(),
            replicaIoThreads == null ? DownstreamSettings.defaultIoThreads() : replicaIoThreads);
    RetentionPolicy retention = retention();
    UpstreamConfig upstream = primary == null ? null : upstream(id, environment);
    if (primary == null) {
      refuseWithoutPrimary();
    }
    return new RelayConfig(
        dataDir,
        flavor,
        syncBinlog,
        retention,
        RelayConfig.DEFAULT_RETENTION_INTERVAL,
        upstream,
        downstream,
        RelayConfig.DEFAULT_DETECTION_TIMEOUT,
        admin(),
        schemaSource(environment),
        archive(id));
  }

  /** {@code --archive-defer-while-behind} and {@code --archive-defer-max-pending}. */
  private CatchUpDeferral deferral() {
    Duration behind =
        archiveDeferWhileBehind == null
            ? CatchUpDeferral.DEFAULT.behindAbove()
            : archiveDeferWhileBehind;
    long pending =
        archiveDeferMaxPending == null
            ? CatchUpDeferral.DEFAULT.maxPendingBytes()
            : archiveDeferMaxPending;
    if (!behind.isZero() && behind.compareTo(CatchUpDeferral.RESUME_WITHIN) <= 0) {
      throw new IllegalArgumentException(
          "--archive-defer-while-behind "
              + behind.toMillis()
              + " ms must be more than "
              + CatchUpDeferral.RESUME_WITHIN.toSeconds()
              + "s (uploads resume within "
              + CatchUpDeferral.RESUME_WITHIN.toSeconds()
              + "s of the primary), or 0 to turn waiting off");
    }
    return new CatchUpDeferral(behind, pending);
  }

  /** The archive, or null without {@code --archive}. */
  private ArchiveConfig archive(long serverId) {
    if (archive == null) {
      List<String> set = new ArrayList<>();
      if (archiveEndpoint != null) {
        set.add("--archive-endpoint");
      }
      if (archiveRegion != null) {
        set.add("--archive-region");
      }
      if (archivePathStyle != null) {
        set.add("--archive-path-style");
      }
      if (archiveCacheBytes != null) {
        set.add("--archive-cache-bytes");
      }
      if (archiveFetchTimeout != null) {
        set.add("--archive-fetch-timeout");
      }
      if (archiveRetention != null) {
        set.add("--archive-retention");
      }
      if (archiveUploadDelay != null) {
        set.add("--archive-upload-delay");
      }
      if (archiveMultipartThreshold != null) {
        set.add("--archive-multipart-threshold");
      }
      if (archiveMaxUploadRate != null) {
        set.add("--archive-max-upload-rate");
      }
      if (archiveDeferWhileBehind != null) {
        set.add("--archive-defer-while-behind");
      }
      if (archiveDeferMaxPending != null) {
        set.add("--archive-defer-max-pending");
      }
      if (archiveCompression != null) {
        set.add("--archive-compression");
      }
      if (archiveEncryptionKeyFile != null) {
        set.add("--archive-encryption-key-file");
      }
      if (archiveEncryptionKeyId != null) {
        set.add("--archive-encryption-key-id");
      }
      if (archiveDecryptionKeys != null) {
        set.add("--archive-decryption-keys");
      }
      if (!set.isEmpty()) {
        throw new IllegalArgumentException(
            String.join(", ", set)
                + (set.size() == 1 ? " needs" : " need")
                + " --archive s3://BUCKET[/PREFIX]");
      }
      return null;
    }
    S3Settings s3 = S3Settings.forBucket(archive.bucket());
    if (archiveEndpoint != null) {
      s3 = s3.withEndpoint(archiveEndpoint);
    }
    if (archiveRegion != null) {
      if (archiveRegion.isBlank() || !archiveRegion.strip().matches("[a-z0-9-]+")) {
        throw new IllegalArgumentException(
            "--archive-region '"
                + archiveRegion
                + "' is not a region name (lower-case letters, digits and dashes, e.g. eu-west-1)");
      }
      s3 = s3.withRegion(archiveRegion.strip());
    }
    if (archivePathStyle != null) {
      s3 = s3.withPathStyle(archivePathStyle);
    }
    long threshold =
        archiveMultipartThreshold == null
            ? UploadConfig.DEFAULT_MULTIPART_THRESHOLD
            : archiveMultipartThreshold;
    if (threshold < UploadConfig.MIN_S3_PART_SIZE || threshold > 5L << 30) {
      throw new IllegalArgumentException(
          "--archive-multipart-threshold "
              + threshold
              + " is outside 5M..5G (S3 refuses parts below 5M, and a single upload above 5G)");
    }
    Duration delay = archiveUploadDelay == null ? Duration.ZERO : archiveUploadDelay;
    if (delay.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException(
          "--archive-upload-delay " + delay.toSeconds() + " s is more than a day (24h)");
    }
    UploadConfig upload =
        UploadConfig.defaults(archive.prefix(), serverId + "@" + DerivedServerId.hostName())
            .withMultipartThreshold(threshold)
            .withUploadDelay(delay)
            .withMaxUploadRate(archiveMaxUploadRate == null ? 0 : archiveMaxUploadRate)
            .withDeferral(deferral());
    long cacheBytes =
        archiveCacheBytes == null ? ArchiveConfig.DEFAULT_CACHE_BYTES : archiveCacheBytes;
    if (cacheBytes < 1L << 20) {
      throw new IllegalArgumentException(
          "--archive-cache-bytes "
              + cacheBytes
              + " is below 1M: the cache must hold at least one binlog file");
    }
    Duration fetchTimeout =
        archiveFetchTimeout == null ? ArchiveConfig.DEFAULT_FETCH_TIMEOUT : archiveFetchTimeout;
    if (fetchTimeout.toMillis() < 1 || fetchTimeout.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException(
          "--archive-fetch-timeout " + fetchTimeout.toMillis() + " ms is outside 1 ms .. 24h");
    }
    Duration retention = archiveRetention == null ? Duration.ZERO : archiveRetention;
    return new ArchiveConfig(
            archive,
            s3,
            upload,
            cacheBytes,
            fetchTimeout,
            retention,
            TieredBinlog.DEFAULT_PREFETCH_FILES)
        .withCodec(archiveCodec());
  }

  /**
   * How archived objects are encoded and decrypted: {@code --archive-compression}, {@code
   * --archive-encryption-key-file}, {@code --archive-encryption-key-id}, {@code
   * --archive-decryption-keys}. The key files are read here, so a bad one stops the start with a
   * message naming the file.
   */
  private ChunkCodec archiveCodec() {
    if (archiveEncryptionKeyId != null && archiveEncryptionKeyFile == null) {
      throw new IllegalArgumentException(
          "--archive-encryption-key-id needs --archive-encryption-key-file");
    }
    ObjectEncoding encoding;
    try {
      encoding = ObjectEncoding.of(archiveCompression, archiveEncryptionKeyFile != null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--archive-compression: " + e.getMessage(), e);
    }
    KeyRing keys;
    try {
      keys = KeyRing.load(archiveEncryptionKeyFile, archiveEncryptionKeyId, archiveDecryptionKeys);
    } catch (KeyFileException e) {
      String option =
          archiveDecryptionKeys != null
                  && !e.getMessage().contains(String.valueOf(archiveEncryptionKeyFile))
              ? "--archive-decryption-keys"
              : "--archive-encryption-key-file";
      throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
    }
    return new ChunkCodec(encoding, ChunkCodec.DEFAULT_CHUNK_SIZE, keys);
  }

  /** The schema source, or null without {@code --schema-source}. */
  private SchemaSourceConfig schemaSource(Map<String, String> environment) {
    if (schemaSource == null) {
      if (schemaSourcePassword != null || schemaSourcePasswordFile != null) {
        throw new IllegalArgumentException(
            (schemaSourcePassword != null
                    ? "--schema-source-password"
                    : "--schema-source-password-file")
                + " given without --schema-source URL");
      }
      return null;
    }
    if (schemaSource.user() == null) {
      throw new IllegalArgumentException(
          "--schema-source "
              + schemaSource
              + " names no user; write"
              + " mysql://USER@HOST[:PORT] with an account that can read the metadata (see docs/downstream.md)");
    }
    if (schemaSourceTimeout.toMillis() < 1
        || schemaSourceTimeout.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException(
          "--schema-source-timeout " + schemaSourceTimeout + " is outside 1 ms .. 1 h");
    }
    if (schemaSourceConnections < 1 || schemaSourceConnections > 256) {
      throw new IllegalArgumentException(
          "--schema-source-connections " + schemaSourceConnections + " is outside 1..256");
    }
    ServerEndpoint endpoint =
        new ServerEndpoint(
            "schema source",
            schemaSource.host().host(),
            schemaSource.host().port(),
            schemaSource.user(),
            schemaSourcePassword(environment),
            schemaSourceTimeout,
            schemaSourceTls());
    return new SchemaSourceConfig(
        endpoint,
        schemaSourceConnections,
        SchemaSourceConfig.DEFAULT_MAX_ANSWER_BYTES,
        SchemaSourceConfig.DEFAULT_IDLE_TIMEOUT);
  }

  /** TLS from the URL's parameters; {@code preferred} by default, as the mysql client's. */
  private TlsConfig schemaSourceTls() {
    Map<String, String> p = schemaSource.parameters();
    TlsMode mode;
    try {
      mode =
          p.containsKey("primary-ssl-mode")
              ? OptionValues.tlsMode(p.get("primary-ssl-mode"))
              : TlsMode.PREFERRED;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--schema-source " + schemaSource + ": " + e.getMessage());
    }
    Path ca = p.containsKey("primary-ssl-ca") ? Path.of(p.get("primary-ssl-ca")) : null;
    Path cert = p.containsKey("primary-ssl-cert") ? Path.of(p.get("primary-ssl-cert")) : null;
    Path key = p.containsKey("primary-ssl-key") ? Path.of(p.get("primary-ssl-key")) : null;
    for (Path file : new Path[] {ca, cert, key}) {
      if (file != null) {
        requireReadable(
            file,
            "--schema-source " + (file == ca ? "ssl-ca" : file == cert ? "ssl-cert" : "ssl-key"));
      }
    }
    if (mode == TlsMode.DISABLED && (ca != null || cert != null || key != null)) {
      throw new IllegalArgumentException(
          "--schema-source: ssl-ca, ssl-cert and ssl-key need ssl-mode preferred,"
              + " required, verify_ca or verify_identity");
    }
    if ((cert == null) != (key == null)) {
      throw new IllegalArgumentException("--schema-source: ssl-cert and ssl-key go together");
    }
    return new TlsConfig(mode, ca, cert, key);
  }

  private String schemaSourcePassword(Map<String, String> environment) {
    List<String> given = new ArrayList<>();
    if (schemaSource.password() != null) {
      given.add("the password in --schema-source");
    }
    if (schemaSourcePassword != null) {
      given.add("--schema-source-password");
    }
    if (schemaSourcePasswordFile != null) {
      given.add("--schema-source-password-file");
    }
    if (given.size() > 1) {
      throw new IllegalArgumentException(
          String.join(" and ", given) + " both give the schema source's password;" + " keep one");
    }
    if (schemaSource.password() != null) {
      return schemaSource.password();
    }
    if (schemaSourcePassword != null) {
      return schemaSourcePassword;
    }
    if (schemaSourcePasswordFile != null) {
      String text = read(schemaSourcePasswordFile, "--schema-source-password-file");
      int end = text.indexOf('\n');
      String line = end < 0 ? text : text.substring(0, end);
      return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }
    String fromEnvironment = environment.get(SCHEMA_SOURCE_PASSWORD_ENV);
    if (fromEnvironment != null) {
      return fromEnvironment;
    }
    throw new IllegalArgumentException(
        "the schema source's password is missing: give --schema-source-password-file"
            + " FILE, set $"
            + SCHEMA_SOURCE_PASSWORD_ENV
            + ", or pass --schema-source-password without a value to be"
            + " prompted");
  }

  private AdminConfig admin() {
    if (adminPort < 0 || adminPort > 65535) {
      throw new IllegalArgumentException("--admin-port " + adminPort + " is outside 0..65535");
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(adminBindAddress.strip());
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "--admin-bind-address '"
              + adminBindAddress
              + "' is not an address of this"
              + " host: "
              + e.getMessage());
    }
    String token = null;
    if (adminTokenFile != null) {
      String text = read(adminTokenFile, "--admin-token-file");
      int end = text.indexOf('\n');
      token = (end < 0 ? text : text.substring(0, end)).strip();
      if (token.isEmpty()) {
        throw new IllegalArgumentException(
            "--admin-token-file " + adminTokenFile + ": its first line is empty");
      }
    }
    if (adminPort == 0) {
      return null;
    }
    if (token == null && !address.isLoopbackAddress()) {
      throw new IllegalArgumentException(
          "--admin-bind-address "
              + adminBindAddress
              + " is not a loopback address:"
              + " give --admin-token-file FILE so that only holders of the token reach the admin API");
    }
    return AdminConfig.of(new InetSocketAddress(address, adminPort), token);
  }

  private int maxConnections() {
    if (maxConnections < 1 || maxConnections > 100_000) {
      throw new IllegalArgumentException(
          "--max-connections " + maxConnections + " is outside 1..100000");
    }
    return maxConnections;
  }

  private int maxConnectRatePerHost() {
    if (maxConnectRatePerHost < 0 || maxConnectRatePerHost > 1_000_000) {
      throw new IllegalArgumentException(
          "--max-connect-rate-per-host "
              + maxConnectRatePerHost
              + " is outside"
              + " 0..1000000 (0: no limit)");
    }
    return maxConnectRatePerHost;
  }

  private boolean servingSharedBatches() {
    String value = servingSharedBatches == null ? "on" : servingSharedBatches.trim();
    if (value.equalsIgnoreCase("on")) {
      return true;
    }
    if (value.equalsIgnoreCase("off")) {
      return false;
    }
    throw new IllegalArgumentException(
        "--serving-shared-batches must be on or off, not '" + servingSharedBatches + "'");
  }

  private int replicaSendBuffer() {
    if (replicaSendBuffer != 0 && (replicaSendBuffer < 4096 || replicaSendBuffer > 256L << 20)) {
      throw new IllegalArgumentException(
          "--replica-send-buffer "
              + replicaSendBuffer
              + " is outside 4K..256M (0: sized"
              + " by the operating system)");
    }
    return (int) replicaSendBuffer;
  }

  private long serverId() {
    if (serverId == null) {
      throw new IllegalArgumentException(
          "--server-id is required: the relay's server_id, as in my.cnf, unique"
              + " among the primary, its replicas and the relay's own replicas (e.g. --server-id=9001)");
    }
    if (serverId < 1 || serverId > 0xFFFFFFFFL) {
      throw new IllegalArgumentException("--server-id " + serverId + " is outside 1..4294967295");
    }
    return serverId;
  }

  private InetSocketAddress bindAddress() {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("--port " + port + " is outside 0..65535");
    }
    try {
      return new InetSocketAddress(InetAddress.getByName(bindAddress.strip()), port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "--bind-address '" + bindAddress + "' is not an address of this host: " + e.getMessage());
    }
  }

  private UserAccounts accounts(List<String> warnings) {
    if (accountsFile == null) {
      warnings.add("no --accounts-file: no replica can log in to the relay");
      return new UserAccounts(List.of());
    }
    String text = read(accountsFile, "--accounts-file");
    try {
      UserAccounts accounts = UserAccounts.parse(text);
      if (accounts.all().isEmpty()) {
        warnings.add(
            "--accounts-file "
                + accountsFile
                + " defines no account: no replica can log in to the relay");
      }
      return accounts;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--accounts-file "
              + accountsFile
              + ", "
              + e.getMessage()
              + " (expected 'user@host privileges hash'; see docs/running.md)");
    }
  }

  private ReplicaServerConfig.TlsFiles tls() {
    if (sslCert == null && sslKey == null) {
      if (requireSecureTransport && !autoGenerateCerts) {
        throw new IllegalArgumentException(
            "--require-secure-transport needs TLS: --ssl-cert and --ssl-key, or"
                + " --auto-generate-certs");
      }
      return null;
    }
    if (sslCert == null || sslKey == null) {
      throw new IllegalArgumentException(
          "--ssl-cert and --ssl-key go together: give both, or neither for a generated"
              + " certificate (--auto-generate-certs)");
    }
    requireReadable(sslCert, "--ssl-cert");
    requireReadable(sslKey, "--ssl-key");
    return new ReplicaServerConfig.TlsFiles(sslCert, sslKey);
  }

  private RetentionPolicy retention() {
    if (expireLogsSeconds < 0) {
      throw new IllegalArgumentException(
          "--binlog-expire-logs-seconds " + expireLogsSeconds + " is negative");
    }
    return RetentionPolicy.keepEverything()
        .withMaxAge(Duration.ofSeconds(expireLogsSeconds))
        .withMaxTotalBytes(maxTotalSize);
  }

  private UpstreamConfig upstream(long id, Map<String, String> environment) {
    if (primaryUser == null || primaryUser.isBlank()) {
      throw new IllegalArgumentException(
          "--primary-user is required with --primary: a user with REPLICATION SLAVE"
              + " and REPLICATION CLIENT on "
              + primary);
    }
    int reported = reportPort != null ? reportPort : port;
    try {
      return UpstreamConfig.builder(
              primary.host(), primary.port(), primaryUser, password(environment))
          .serverId(id)
          .report(reportHost, reported)
          .heartbeatPeriod(heartbeatPeriod)
          .start(start)
          .semiSync(semiSync)
          .tls(primaryTls())
          .build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("primary settings: " + e.getMessage());
    }
  }

  private TlsConfig primaryTls() {
    for (Path file : new Path[] {primarySslCa, primarySslCert, primarySslKey}) {
      if (file != null) {
        requireReadable(
            file,
            file == primarySslCa
                ? "--primary-ssl-ca"
                : file == primarySslCert ? "--primary-ssl-cert" : "--primary-ssl-key");
      }
    }
    if (primarySslMode == TlsMode.DISABLED
        && (primarySslCa != null || primarySslCert != null || primarySslKey != null)) {
      throw new IllegalArgumentException(
          "--primary-ssl-ca, --primary-ssl-cert and --primary-ssl-key need"
              + " --primary-ssl-mode preferred, required, verify_ca or verify_identity");
    }
    if ((primarySslCert == null) != (primarySslKey == null)) {
      throw new IllegalArgumentException("--primary-ssl-cert and --primary-ssl-key go together");
    }
    return new TlsConfig(primarySslMode, primarySslCa, primarySslCert, primarySslKey);
  }

  private String password(Map<String, String> environment) {
    if (primaryPassword != null && primaryPasswordFile != null) {
      throw new IllegalArgumentException(
          "--primary-password and --primary-password-file both give the primary's"
              + " password; keep one");
    }
    if (primaryPassword != null) {
      return primaryPassword;
    }
    if (primaryPasswordFile != null) {
      String text = read(primaryPasswordFile, "--primary-password-file");
      int end = text.indexOf('\n');
      String line = end < 0 ? text : text.substring(0, end);
      return line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    }
    String fromEnvironment = environment.get(PASSWORD_ENV);
    if (fromEnvironment != null) {
      return fromEnvironment;
    }
    throw new IllegalArgumentException(
        "the primary's password is missing: give --primary-password-file FILE, set $"
            + PASSWORD_ENV
            + ", or pass --primary-password without a value to be prompted");
  }

  private void refuseWithoutPrimary() {
    List<String> set = new ArrayList<>();
    if (primaryUser != null) {
      set.add("--primary-user");
    }
    if (primaryPassword != null) {
      set.add("--primary-password");
    }
    if (primaryPasswordFile != null) {
      set.add("--primary-password-file");
    }
    if (primarySslCa != null || primarySslCert != null || primarySslKey != null) {
      set.add("--primary-ssl-*");
    }
    if (!set.isEmpty()) {
      throw new IllegalArgumentException(
          String.join(", ", set) + " given without --primary HOST[:PORT]");
    }
  }

  private static String read(Path file, String option) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          option + " " + file + ": cannot read it (" + e.getMessage() + ")");
    }
  }

  private static void requireReadable(Path file, String option) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new IllegalArgumentException(option + " " + file + ": no such readable file");
    }
  }
}
