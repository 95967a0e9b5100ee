package org.binlogrelay.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.binlogrelay.archive.ArchiveConfig;
import org.binlogrelay.archive.upload.CatchUpDeferral;
import org.binlogrelay.archive.upload.UploadConfig;
import org.binlogrelay.storage.tier.TieredBinlog;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --archive} and its options from the command line, the environment and the YAML file: off
 * by default, the documented defaults, and one clear line for each value that does not parse, each
 * option given without {@code --archive}, and each value out of range.
 */
class ArchiveOptionsTest {
  @TempDir Path dir;

  private RelayCommandLine cli;

  @BeforeEach
  void commandLine() {
    cli = new RelayCommandLine(dir.resolve("data"));
  }

  private int run(String... args) {
    return cli.run(args);
  }

  private ArchiveConfig archive() {
    return cli.launched().archive();
  }

  private void assertUsageError(int status, String message) {
    cli.assertUsageError(status, message);
  }

  @Test
  void offByDefault() {
    assertThat(run()).as(cli.err()).isZero();
    assertThat(archive()).isNull();
  }

  @Test
  void defaults() {
    assertThat(run("--archive", "s3://my-binlogs/relay-1")).as(cli.err()).isZero();
    ArchiveConfig a = archive();
    assertThat(a.location().bucket()).isEqualTo("my-binlogs");
    assertThat(a.location().prefix()).isEqualTo("relay-1/");
    assertThat(a.s3().endpoint()).isEmpty();
    assertThat(a.s3().region()).isEmpty();
    assertThat(a.s3().pathStyle()).isFalse();
    assertThat(a.s3().staticCredentials()).as("credentials from the SDK's chain").isEmpty();
    assertThat(a.cacheBytes()).isEqualTo(4L << 30);
    assertThat(a.fetchTimeout()).isEqualTo(Duration.ofMinutes(5));
    assertThat(a.retention()).isZero();
    assertThat(a.prefetchFiles()).isEqualTo(TieredBinlog.DEFAULT_PREFETCH_FILES);
    assertThat(a.upload().prefix()).isEqualTo("relay-1/");
    assertThat(a.upload().multipartThreshold()).isEqualTo(UploadConfig.DEFAULT_MULTIPART_THRESHOLD);
    assertThat(a.upload().uploadDelay()).isZero();
    assertThat(a.upload().maxUploadRate()).as("unlimited").isZero();
    assertThat(a.upload().deferral())
        .as("uploads wait while more than 10 s behind, for at most 4 GiB")
        .isEqualTo(new CatchUpDeferral(Duration.ofSeconds(10), 4L << 30));
    assertThat(a.upload().uploadedBy()).startsWith("9@");
  }

  @Test
  void everyOptionOnTheCommandLine() {
    assertThat(
            run(
                "--archive",
                "s3://my-binlogs",
                "--archive-endpoint",
                "http://127.0.0.1:9000/",
                "--archive-region",
                "eu-west-1",
                "--archive-path-style",
                "--archive-cache-bytes",
                "512M",
                "--archive-fetch-timeout",
                "90s",
                "--archive-retention",
                "720h",
                "--archive-upload-delay",
                "2m",
                "--archive-multipart-threshold",
                "8M",
                "--archive-max-upload-rate",
                "32M",
                "--archive-defer-while-behind",
                "1m",
                "--archive-defer-max-pending",
                "20G"))
        .as(cli.err())
        .isZero();
    ArchiveConfig a = archive();
    assertThat(a.location().prefix()).isEmpty();
    assertThat(a.s3().endpoint()).contains(URI.create("http://127.0.0.1:9000"));
    assertThat(a.s3().region()).contains("eu-west-1");
    assertThat(a.s3().pathStyle()).isTrue();
    assertThat(a.cacheBytes()).isEqualTo(512L << 20);
    assertThat(a.fetchTimeout()).isEqualTo(Duration.ofSeconds(90));
    assertThat(a.retention()).isEqualTo(Duration.ofDays(30));
    assertThat(a.upload().uploadDelay()).isEqualTo(Duration.ofMinutes(2));
    assertThat(a.upload().multipartThreshold()).isEqualTo(8L << 20);
    assertThat(a.upload().maxUploadRate()).isEqualTo(32L << 20);
    assertThat(a.upload().deferral())
        .isEqualTo(new CatchUpDeferral(Duration.ofMinutes(1), 20L << 30));
  }

  @Test
  void waitingForCatchUpsCanBeTurnedOff() {
    assertThat(run("--archive", "s3://b1x", "--archive-defer-while-behind", "0"))
        .as(cli.err())
        .isZero();
    assertThat(archive().upload().deferral().enabled()).isFalse();
  }

  @Test
  void fromTheFileAndTheEnvironment() throws IOException {
    Path file =
        Files.writeString(
            dir.resolve("relay.yaml"),
            "archive: s3://my-binlogs/a/b\n"
                + "archive-endpoint: https://s3.example:8443\n"
                + "archive_path_style: true\n"
                + "archive-retention: 0\n");
    cli.environment().put("BINLOG_RELAY_ARCHIVE_FETCH_TIMEOUT", "10s");
    assertThat(run("--config", file.toString())).as(cli.err()).isZero();
    ArchiveConfig a = archive();
    assertThat(a.location().prefix()).isEqualTo("a/b/");
    assertThat(a.s3().endpoint()).contains(URI.create("https://s3.example:8443"));
    assertThat(a.s3().pathStyle()).isTrue();
    assertThat(a.retention()).isZero();
    assertThat(a.fetchTimeout()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void optionsWithoutArchiveAreRefused() {
    assertUsageError(
        run("--archive-endpoint", "http://127.0.0.1:9000"),
        "--archive-endpoint needs --archive s3://BUCKET[/PREFIX]");
    assertUsageError(
        run("--archive-path-style", "--archive-retention", "1h"),
        "--archive-path-style, --archive-retention need --archive");
    cli.environment().put("BINLOG_RELAY_ARCHIVE_CACHE_BYTES", "1G");
    assertUsageError(run(), "--archive-cache-bytes needs --archive");
    cli.environment().clear();
    assertUsageError(
        run("--archive-max-upload-rate", "32M"), "--archive-max-upload-rate needs --archive");
  }

  @Test
  void badValuesAreRefused() {
    assertUsageError(
        run("--archive", "http://bucket/x"),
        "Invalid value for option '--archive': invalid archive URL 'http://bucket/x': it does not"
            + " start with s3://");
    assertUsageError(
        run("--archive", "s3://B_ad"), "Invalid value for option '--archive': invalid archive URL");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-endpoint", "ftp://host"),
        "Invalid value for option '--archive-endpoint': endpoint 'ftp://host' not understood: it"
            + " does not start with http:// or https://");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-endpoint", "http://key:secret@host:9000"),
        "it holds credentials; they come from the AWS SDK's chain, never an option");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-endpoint", "http://host:9000/bucket"),
        "it has a path; the bucket and prefix go in --archive");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-region", "EU West"),
        "--archive-region 'EU West' is not a region name");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-cache-bytes", "lots"),
        "Invalid value for option '--archive-cache-bytes': size 'lots' not understood");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-cache-bytes", "1K"),
        "--archive-cache-bytes 1024 is below 1M");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-fetch-timeout", "0"),
        "--archive-fetch-timeout 0 ms is outside 1 ms .. 24h");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-retention", "-5s"),
        "Invalid value for option '--archive-retention': duration '-5s' is negative");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-upload-delay", "soon"),
        "Invalid value for option '--archive-upload-delay': duration 'soon' not understood");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-multipart-threshold", "1M"),
        "--archive-multipart-threshold 1048576 is outside 5M..5G");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-max-upload-rate", "fast"),
        "Invalid value for option '--archive-max-upload-rate': size 'fast' not understood");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-defer-while-behind", "2s"),
        "--archive-defer-while-behind 2000 ms must be more than 2s (uploads resume within 2s of the"
            + " primary), or 0 to turn waiting off");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-defer-max-pending", "much"),
        "Invalid value for option '--archive-defer-max-pending': size 'much' not understood");
    assertUsageError(
        run("--archive-defer-while-behind", "30s"), "--archive-defer-while-behind needs --archive");
    assertUsageError(
        run("--archive", "s3://b1x", "--archive-path-style", "maybe"),
        "Unmatched argument at index 9: 'maybe'"); // as for every true|false option
  }

  @Test
  void theConfigKeepsTheArchiveThroughItsWithers() {
    assertThat(run("--archive", "s3://my-binlogs")).as(cli.err()).isZero();
    RelayConfig config = cli.launched();
    assertThat(config.withAdmin(null).archiveConfig()).isEqualTo(Optional.of(config.archive()));
    assertThat(config.withSchemaSource(null).archive()).isEqualTo(config.archive());
  }
}
