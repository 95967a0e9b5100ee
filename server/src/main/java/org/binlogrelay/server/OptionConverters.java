package org.binlogrelay.server;

import java.net.URI;
import java.time.Duration;
import org.binlogrelay.archive.ArchiveLocation;
import org.binlogrelay.protocol.gtid.GtidFlavor;
import org.binlogrelay.server.upstream.StartPosition;
import org.binlogrelay.server.upstream.TlsMode;
import org.binlogrelay.storage.SyncPolicy;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The picocli converters of {@link RelayOptions}, over the parsers of {@link OptionValues}: a value
 * that does not parse becomes a {@link TypeConversionException} carrying the parser's message,
 * which picocli reports as "Invalid value for option '--x': ..." (exit status 2). Stateless.
 */
final class OptionConverters {

  private OptionConverters() {}

  /** Wraps a parser's {@link IllegalArgumentException} so that picocli reports its message. */
  private abstract static class Converter<T> implements ITypeConverter<T> {
    @Override
    public T convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }

    abstract T parse(String value);
  }

  static final class FlavorConverter extends Converter<GtidFlavor> {
    @Override
    GtidFlavor parse(String value) {
      return OptionValues.flavor(value);
    }
  }

  static final class SyncPolicyConverter extends Converter<SyncPolicy> {
    @Override
    SyncPolicy parse(String value) {
      return OptionValues.syncPolicy(value);
    }
  }

  static final class ByteSizeConverter extends Converter<Long> {
    @Override
    Long parse(String value) {
      return OptionValues.byteSize(value);
    }
  }

  static final class HostPortConverter extends Converter<HostPort> {
    @Override
    HostPort parse(String value) {
      return HostPort.parse(value, RelayOptions.DEFAULT_PRIMARY_PORT);
    }
  }

  static final class StartConverter extends Converter<StartPosition> {
    @Override
    StartPosition parse(String value) {
      return OptionValues.startPosition(value);
    }
  }

  static final class TlsModeConverter extends Converter<TlsMode> {
    @Override
    TlsMode parse(String value) {
      return OptionValues.tlsMode(value);
    }
  }

  static final class SourceUrlConverter extends Converter<SourceUrl> {
    @Override
    SourceUrl parse(String value) {
      return SourceUrl.parse(value);
    }
  }

  static final class LogFormatConverter extends Converter<LogFormat> {
    @Override
    LogFormat parse(String value) {
      return LogFormat.parse(value);
    }
  }

  static final class DurationConverter extends Converter<Duration> {
    @Override
    Duration parse(String value) {
      return OptionValues.duration(value);
    }
  }

  static final class ArchiveLocationConverter extends Converter<ArchiveLocation> {
    @Override
    ArchiveLocation parse(String value) {
      return ArchiveLocation.parse(value.strip());
    }
  }

  static final class EndpointConverter extends Converter<URI> {
    @Override
    URI parse(String value) {
      return OptionValues.endpoint(value);
    }
  }
}
