package org.binlogrelay.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ArchiveLocationTest {

  @ParameterizedTest
  @CsvSource({
    "s3://binlogs, binlogs, ''",
    "s3://binlogs/, binlogs, ''",
    "s3://binlogs/relay-1, binlogs, relay-1/",
    "s3://binlogs/relay-1/, binlogs, relay-1/",
    "s3://my.bucket-2/a/b/c, my.bucket-2, a/b/c/",
    "S3://binlogs/x, binlogs, x/"
  })
  void parsesBucketAndPrefix(String url, String bucket, String prefix) {
    ArchiveLocation location = ArchiveLocation.parse(url);

    assertThat(location.bucket()).isEqualTo(bucket);
    assertThat(location.prefix()).isEqualTo(prefix);
  }

  @Test
  void joinsKeysUnderThePrefix() {
    assertThat(ArchiveLocation.parse("s3://b-1/relay").key("binlogs/binlog.000001"))
        .isEqualTo("relay/binlogs/binlog.000001");
    assertThat(ArchiveLocation.parse("s3://b-1").key("meta/x")).isEqualTo("meta/x");
    assertThat(ArchiveLocation.parse("s3://b-1/relay").toString()).isEqualTo("s3://b-1/relay/");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "''| it is empty",
        "binlogs/relay| does not start with s3://",
        "https://binlogs/relay| does not start with s3://",
        "s3://| it has no bucket",
        "s3:///prefix| it has no bucket",
        "s3://Binlogs| invalid bucket name 'Binlogs'",
        "s3://ab| invalid bucket name 'ab'",
        "s3://bin_logs| invalid bucket name",
        "s3://-binlogs| invalid bucket name",
        "s3://bin..logs| invalid bucket name",
        "s3://binlogs//x| empty path segment",
        "s3://binlogs/a b| space or control character",
        "s3://binlogs/x?versionId=1| query or fragment"
      })
  void refusesMalformedUrlsSayingWhy(String url, String why) {
    assertThatThrownBy(() -> ArchiveLocation.parse(url))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("invalid archive URL")
        .hasMessageContaining(why)
        .hasMessageContaining("expected s3://bucket or s3://bucket/prefix");
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> ArchiveLocation.parse(null)).hasMessageContaining("it is empty");
  }
}
