package org.binlogrelay.storage.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.binlogrelay.storage.read.BinlogReadException.Reason;
import org.binlogrelay.storage.read.testing.SourceFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Walking event headers, and refusing everything that is not an event boundary. */
class EventCursorTest {
  @TempDir Path dir;

  @Test
  void walksEveryEventOfTheFixtures() throws IOException {
    for (SourceFiles source : SourceFiles.all()) {
      for (String f : source.files) {
        Path p = dir.resolve(f);
        Files.write(p, source.bytes(f));
        try (FileChannel ch = FileChannel.open(p)) {
          EventCursor cursor = new EventCursor(f, ch, 4, ch.size(), SourceFiles.MAX_EVENT_SIZE);
          List<Long> starts = new ArrayList<>();
          while (cursor.hasNext()) {
            starts.add(cursor.position());
            cursor.skip();
          }
          assertThat(starts).isEqualTo(new ArrayList<>(source.eventStarts(f)));
          assertThat(cursor.position()).isEqualTo(ch.size());
        }
      }
    }
  }

  @Test
  void refusesEveryOffsetInsideAnEvent() throws IOException {
    for (SourceFiles source : SourceFiles.all()) {
      for (String f : source.files.subList(0, 2)) {
        Path p = dir.resolve(f);
        Files.write(p, source.bytes(f));
        try (FileChannel ch = FileChannel.open(p)) {
          for (long offset = 5; offset < ch.size(); offset++) {
            if (source.eventStarts(f).contains(offset)) {
              continue;
            }
            EventCursor cursor =
                new EventCursor(f, ch, offset, ch.size(), SourceFiles.MAX_EVENT_SIZE);
            long at = offset;
            assertThatThrownBy(cursor::peek)
                .as(f + " at " + at)
                .isInstanceOfSatisfying(
                    BinlogReadException.class,
                    e -> {
                      assertThat(e.reason()).isEqualTo(Reason.CORRUPT);
                      assertThat(e.position().offset()).isEqualTo(at);
                    });
          }
        }
      }
    }
  }

  @Test
  void reportsAFileShorterThanItsLimit() throws IOException {
    SourceFiles source = SourceFiles.mysql();
    String f = source.lastFile();
    Path p = dir.resolve(f);
    byte[] bytes = source.bytes(f);
    Files.write(p, Arrays.copyOf(bytes, 1000));
    try (FileChannel ch = FileChannel.open(p)) {
      EventCursor cursor = new EventCursor(f, ch, 4, bytes.length, SourceFiles.MAX_EVENT_SIZE);
      assertThatThrownBy(
              () -> {
                while (cursor.hasNext()) {
                  cursor.skip();
                }
              })
          .isInstanceOfSatisfying(
              BinlogReadException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED))
          .hasMessageContaining("truncated");
    }
  }
}
