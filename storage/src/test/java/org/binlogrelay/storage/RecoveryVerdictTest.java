package org.binlogrelay.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.binlogrelay.protocol.gtid.GtidSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StoreRecovery#recoverFile}, the per-file step of recovery: the verdict for each kind of
 * file and what it says was cut, without writing ({@link ReadOnlyRecovery}: nothing on disk
 * changes) and in place ({@link InPlaceRecovery}: the same cut made on disk). Whole recoveries are
 * in {@link RecoveryTest}.
 */
class RecoveryVerdictTest {
  @TempDir Path dir;

  private final SourceBinlog source = SourceBinlog.mysql();
  private final List<String> names = source.files;

  private StoreRecovery recovery(boolean inPlace) throws IOException {
    StoreDirectory d = new StoreDirectory(dir);
    BinlogFlavor flavor = BinlogFlavor.of(source.flavor);
    StoreConfig config = Stores.config(dir, source).build();
    return inPlace
        ? new StoreRecovery(d, flavor, config)
        : StoreRecovery.withoutWriting(d, flavor, config);
  }

  private GtidSet gtidsAtEndOf(String file) {
    return Stores.sourceGtidsAt(source, new Position(file, source.bytes.get(file).length));
  }

  @Test
  void aClosedFileWithIntactMetadataIsKeptUnread() throws IOException {
    Stores.fill(dir, source);
    StoreRecovery.Verdict v = recovery(false).recoverFile(names, 0, source.empty());
    assertThat(v).isInstanceOf(StoreRecovery.Verdict.Intact.class);
    assertThat(v.kept().size()).isEqualTo(source.bytes.get(names.get(0)).length);
    assertThat(v.gtidsAtEnd()).isEqualTo(gtidsAtEndOf(names.get(0)));
    assertThat(v.cut()).isNull();
    assertThat(v.endsStore()).isFalse();
  }

  @Test
  void aTornTailIsReopenedAtItsLastBoundaryAndTheVerdictSaysWhatWasCut() throws IOException {
    Stores.fill(dir, source);
    String tail = names.get(2);
    long torn = source.bytes.get(tail).length - 10L;
    try (FileChannel ch = FileChannel.open(dir.resolve(tail), StandardOpenOption.WRITE)) {
      ch.truncate(torn);
    }
    long boundary = source.boundariesOf(tail).floorKey(torn);
    GtidSet before = gtidsAtEndOf(names.get(1));
    for (boolean inPlace : new boolean[] {false, true}) {
      StoreRecovery.Verdict v = recovery(inPlace).recoverFile(names, 2, before);
      assertThat(v).as("in place: " + inPlace).isInstanceOf(StoreRecovery.Verdict.Open.class);
      StoreRecovery.Verdict.Open open = (StoreRecovery.Verdict.Open) v;
      try {
        assertThat(open.tail().boundary()).isEqualTo(new Position(tail, boundary));
        assertThat(v.cut().file()).isEqualTo(tail);
        assertThat(v.cut().offset()).isEqualTo(boundary);
        assertThat(v.cut().bytes()).isEqualTo(torn - boundary);
        assertThat(v.kept().size()).isEqualTo(boundary);
        assertThat(v.gtidsAtEnd())
            .isEqualTo(Stores.sourceGtidsAt(source, new Position(tail, boundary)));
        assertThat(v.endsStore()).isTrue();
      } finally {
        open.tail().file.close();
      }
      assertThat(Files.size(dir.resolve(tail)))
          .as("in place: " + inPlace)
          .isEqualTo(inPlace ? boundary : torn);
    }
  }

  @Test
  void aFileWithoutACompleteFormatDescriptionIsRemoved() throws IOException {
    Stores.fill(dir, source);
    String last = names.get(names.size() - 1);
    String next =
        last.substring(0, last.lastIndexOf('.') + 1)
            + String.format("%06d", BinlogFileName.sequence(last) + 1);
    Files.write(dir.resolve(next), Arrays.copyOf(source.bytes.get(last), 4));
    List<String> withNext = new ArrayList<>(names);
    withNext.add(next);
    GtidSet before = gtidsAtEndOf(last);
    for (boolean inPlace : new boolean[] {false, true}) {
      StoreRecovery.Verdict v =
          recovery(inPlace).recoverFile(withNext, withNext.size() - 1, before);
      assertThat(v).isInstanceOf(StoreRecovery.Verdict.Removed.class);
      assertThat(((StoreRecovery.Verdict.Removed) v).name()).isEqualTo(next);
      assertThat(v.gtidsAtEnd()).isEqualTo(before);
      assertThat(v.cut())
          .extracting(Truncation::file, Truncation::offset, Truncation::bytes, Truncation::reason)
          .containsExactly(next, 0L, 4L, "holds no complete FORMAT_DESCRIPTION");
      assertThat(v.kept()).isNull();
      assertThat(v.endsStore()).isTrue();
      assertThat(Files.exists(dir.resolve(next))).as("in place: " + inPlace).isEqualTo(!inPlace);
    }
  }
}
