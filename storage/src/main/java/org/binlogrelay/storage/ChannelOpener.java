package org.binlogrelay.storage;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/**
 * Opens the channels the store writes through: binlog files, temporary files of atomic writes, the directory
 * for its forces. {@link #FILES} in production; tests pass one that wraps the channels to inject I/O errors
 * (see {@link BinlogStore#open(StoreConfig, ChannelOpener)}).
 */
@FunctionalInterface
interface ChannelOpener {
  ChannelOpener FILES = FileChannel::open;

  FileChannel open(Path path, OpenOption... options) throws IOException;
}
