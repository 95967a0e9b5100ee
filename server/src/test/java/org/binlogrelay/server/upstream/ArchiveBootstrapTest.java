package org.binlogrelay.server.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Optional;
import org.binlogrelay.storage.Position;
import org.junit.jupiter.api.Test;

/**
 * Where an empty store with an archive starts ({@link StartPosition.AfterArchive} through {@link
 * StartResolver}): at offset 4 of the file after the archive's newest one; a configured file must
 * be that one, a GTID or {@code current} start is refused with a clear message; an empty archive
 * leaves the configured start; an archive that cannot be listed is an {@link IOException} (a
 * transient failure the upstream retries with its back-off), never a crash.
 */
class ArchiveBootstrapTest {
  private static final String LOCATION = "s3://binlogs/relay-1/";

  /** No primary connection: the archive's end decides before anything is asked of the primary. */
  private final StartResolver resolver = new StartResolver(null, null, null);

  private static StartPosition.ArchiveEnd archiveEndingBefore(String next) {
    return new StartPosition.ArchiveEnd() {
      @Override
      public Optional<String> nextFile() {
        return Optional.ofNullable(next);
      }

      @Override
      public String location() {
        return LOCATION;
      }
    };
  }

  @Test
  void theDefaultStartContinuesTheArchive() throws IOException {
    StartPosition start =
        StartPosition.afterArchive(StartPosition.earliest(), archiveEndingBefore("binlog.000013"));
    assertThat(resolver.resolve(start)).isEqualTo(Position.startOf("binlog.000013"));
    assertThat(start).hasToString("the end of the archive " + LOCATION + ", else earliest");
  }

  @Test
  void aStartFileThatAgreesIsAccepted() throws IOException {
    StartPosition start =
        StartPosition.afterArchive(
            StartPosition.file("binlog.000013", 4), archiveEndingBefore("binlog.000013"));
    assertThat(resolver.resolve(start)).isEqualTo(Position.startOf("binlog.000013"));
  }

  @Test
  void aStartThatDisagreesIsRefused() {
    assertThatThrownBy(
            () ->
                resolver.resolve(
                    StartPosition.afterArchive(
                        StartPosition.file("binlog.000002", 4),
                        archiveEndingBefore("binlog.000013"))))
        .isInstanceOf(FatalUpstreamException.class)
        .hasMessage(
            "--start file:binlog.000002 disagrees with the archive "
                + LOCATION
                + ", which continues at binlog.000013:4 (the file after its newest one): an empty"
                + " store with an archive continues the archive, with no gap and no duplicate;"
                + " remove --start or give --start file:binlog.000013");
    assertThatThrownBy(
            () ->
                resolver.resolve(
                    StartPosition.afterArchive(
                        StartPosition.gtids("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"),
                        archiveEndingBefore("binlog.000013"))))
        .isInstanceOf(FatalUpstreamException.class)
        .hasMessageContaining("cannot apply: the archive " + LOCATION + " holds binlogs")
        .hasMessageContaining("give --start file:binlog.000013");
    assertThatThrownBy(
            () ->
                resolver.resolve(
                    StartPosition.afterArchive(
                        StartPosition.current(), archiveEndingBefore("binlog.000013"))))
        .isInstanceOf(FatalUpstreamException.class);
  }

  @Test
  void anEmptyArchiveLeavesTheConfiguredStart() throws IOException {
    assertThat(
            resolver.resolve(
                StartPosition.afterArchive(
                    StartPosition.file("binlog.000002", 4), archiveEndingBefore(null))))
        .isEqualTo(Position.startOf("binlog.000002"));
  }

  @Test
  void anUnreachableArchiveIsATransientFailure() {
    StartPosition.ArchiveEnd unreachable =
        new StartPosition.ArchiveEnd() {
          @Override
          public Optional<String> nextFile() throws IOException {
            throw new IOException("cannot list the archive: Connection refused");
          }

          @Override
          public String location() {
            return LOCATION;
          }
        };
    assertThatThrownBy(
            () ->
                resolver.resolve(StartPosition.afterArchive(StartPosition.earliest(), unreachable)))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(FatalUpstreamException.class)
        .hasMessageContaining("Connection refused");
    assertThat(FailurePolicy.classify(new IOException("cannot list the archive")).name())
        .isEqualTo("TRANSIENT");
  }

  @Test
  void wrappingTwiceKeepsTheFirst() {
    StartPosition once =
        StartPosition.afterArchive(StartPosition.earliest(), archiveEndingBefore("binlog.000013"));
    assertThat(StartPosition.afterArchive(once, archiveEndingBefore("x"))).isSameAs(once);
  }
}
