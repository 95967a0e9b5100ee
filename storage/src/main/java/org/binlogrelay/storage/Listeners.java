package org.binlogrelay.storage;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered {@link StoreListener}s, each called safely (an exception is logged). Thread-safe.
 */
final class Listeners {
  private static final Logger LOG = LoggerFactory.getLogger(Listeners.class);

  private final List<StoreListener> listeners = new CopyOnWriteArrayList<>();

  void add(StoreListener l) {
    listeners.add(l);
  }

  void remove(StoreListener l) {
    listeners.remove(l);
  }

  void fileCreated(String name) {
    each(l -> l.fileCreated(name), "fileCreated " + name);
  }

  void fileClosed(FileMetadata meta) {
    each(l -> l.fileClosed(meta), "fileClosed " + meta.name());
  }

  void filesRemoved(List<String> names) {
    each(l -> l.filesRemoved(names), "filesRemoved " + names);
  }

  void failed(Throwable cause) {
    each(l -> l.failed(cause), "failed");
  }

  void resumed(StoreHealth health) {
    each(l -> l.resumed(health), "resumed");
  }

  void transactionWritten(Position end, long eventTimestamp) {
    for (StoreListener l : listeners) {
      try {
        l.transactionWritten(end, eventTimestamp);
      } catch (RuntimeException e) {
        LOG.warn("store listener {} threw on transactionWritten {}; ignored", l, end, e);
      }
    }
  }

  void forced(long nanos, long transactions) {
    for (StoreListener l : listeners) {
      try {
        l.forced(nanos, transactions);
      } catch (RuntimeException e) {
        LOG.warn("store listener {} threw on forced; ignored", l, e);
      }
    }
  }

  void appendRefused(StoreCondition condition) {
    each(l -> l.appendRefused(condition), "appendRefused");
  }

  private void each(Consumer<StoreListener> call, String what) {
    for (StoreListener l : listeners) {
      try {
        call.accept(l);
      } catch (RuntimeException e) {
        LOG.warn("store listener {} threw on {}; ignored", l, what, e);
      }
    }
  }
}
