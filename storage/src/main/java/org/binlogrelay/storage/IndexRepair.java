package org.binlogrelay.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * First step of recovery: makes the index and the directory agree, the way a crash can leave them
 * apart. The writer creates a file before the syncer lists it in the index, and retention rewrites
 * the index before deleting files, so:
 *
 * <ul>
 *   <li>a file newer than the last indexed one, not in the index: created just before a crash;
 *       added.
 *   <li>a file older than the first indexed one, not in the index: retention was interrupted;
 *       deleted.
 *   <li>an indexed file missing at either end of the list: dropped from the index; a missing last
 *       file becomes the next file to fetch from the primary.
 *   <li>an indexed file missing in the middle, or an unindexed file in the middle: not repaired
 *       ({@link StoreCorruptException}), since no crash of ours makes it.
 *   <li>{@code *.tmp} leftovers of atomic writes and metadata of files not stored: deleted.
 * </ul>
 *
 * Each repair is logged at WARN and listed in {@link #actions()}. Without writes (a recovery that
 * only reads), the same list of files is returned and nothing is deleted: leftovers are left out of
 * the list and deleted by a later recovery that writes. Made by the recovery strategies ({@link
 * InPlaceRecovery} deletes, {@link ReadOnlyRecovery} does not) and used once per recovery by {@link
 * StoreRecovery}.
 */
final class IndexRepair {
  private static final Logger LOG = LoggerFactory.getLogger(IndexRepair.class);

  private final StoreDirectory dir;
  private final boolean writes;
  private final List<String> actions = new ArrayList<>();
  private String indexName;
  private List<String> files = List.of();
  private String missingLast;
  private boolean changed;

  IndexRepair(StoreDirectory dir, boolean writes) {
    this.dir = dir;
    this.writes = writes;
  }

  /** Repairs what it can and returns the files in serving order. */
  List<String> run() throws IOException {
    List<String> entries = dir.list();
    for (String name : entries) {
      if (name.endsWith(StoreDirectory.TEMP_SUFFIX) && writes) {
        dir.delete(name);
        act("deleted " + name + ", left over from an interrupted atomic write");
      }
    }
    entries = dir.list();
    Optional<String> index = BinlogIndex.find(entries, dir);
    indexName = index.orElse(null);
    List<String> indexed = index.isPresent() ? BinlogIndex.read(dir, indexName) : List.of();
    TreeMap<Long, String> onDisk = binlogsOnDisk(entries);
    List<String> present = dropMissing(indexed, onDisk);
    files = addUnindexed(present, onDisk);
    if (indexName == null && !files.isEmpty()) {
      indexName = BinlogIndex.nameFor(files.get(0));
      changed = true;
    }
    deleteOrphanMetadata(entries);
    return files;
  }

  private TreeMap<Long, String> binlogsOnDisk(List<String> entries) {
    TreeMap<Long, String> onDisk = new TreeMap<>();
    String base =
        indexName == null
            ? null
            : indexName.substring(0, indexName.length() - BinlogIndex.SUFFIX.length());
    for (String name : entries) {
      if (!BinlogFileName.isValid(name)) {
        continue;
      }
      if (base == null) {
        base = BinlogFileName.base(name);
      } else if (!BinlogFileName.base(name).equals(base)) {
        throw new StoreCorruptException(
            "binlog store "
                + dir
                + " holds "
                + name
                + " next to "
                + base
                + ".* files; a store holds one primary's files with one base name. Move it out and retry.");
      }
      String other = onDisk.put(BinlogFileName.sequence(name), name);
      if (other != null) {
        throw new StoreCorruptException(
            "binlog store "
                + dir
                + " holds both "
                + other
                + " and "
                + name
                + " with the same sequence number; move one out and retry");
      }
    }
    return onDisk;
  }

  private List<String> dropMissing(List<String> indexed, TreeMap<Long, String> onDisk)
      throws IOException {
    List<String> present = new ArrayList<>();
    for (int i = 0; i < indexed.size(); i++) {
      String name = indexed.get(i);
      if (onDisk.containsValue(name)) {
        present.add(name);
        continue;
      }
      boolean atStart = present.isEmpty();
      boolean atEnd =
          indexed.subList(i + 1, indexed.size()).stream().noneMatch(onDisk::containsValue);
      if (atStart) {
        act(
            "dropped "
                + name
                + " from the index: the file is missing (removed outside the store?)");
      } else if (atEnd) {
        act(
            "dropped "
                + name
                + " from the index: the file is missing; it will be fetched again from the primary");
        if (missingLast == null) {
          missingLast = name;
        }
      } else {
        throw new StoreCorruptException(
            "binlog store "
                + dir
                + ": "
                + indexName
                + " lists "
                + name
                + " between "
                + present.get(present.size() - 1)
                + " and later files, but the file is missing. The stored binlog has"
                + " a hole; restore the file, or remove it and every later file from the index to truncate the store");
      }
      changed = true;
    }
    return present;
  }

  private List<String> addUnindexed(List<String> present, TreeMap<Long, String> onDisk)
      throws IOException {
    List<String> result = new ArrayList<>(present);
    long first = present.isEmpty() ? Long.MAX_VALUE : BinlogFileName.sequence(present.get(0));
    long last =
        present.isEmpty()
            ? Long.MIN_VALUE
            : BinlogFileName.sequence(present.get(present.size() - 1));
    for (String name : onDisk.values()) {
      if (present.contains(name)) {
        continue;
      }
      long seq = BinlogFileName.sequence(name);
      if (seq > last) {
        result.add(name);
        act("added " + name + " to the index: it was created just before a crash");
        changed = true;
        missingLast = null;
      } else if (seq < first) {
        delete(name);
        delete(MetadataFile.nameFor(name));
        act(
            deleted()
                + name
                + ": older than the first indexed file, left over from an interrupted removal");
        changed = true;
      } else {
        throw new StoreCorruptException(
            "binlog store "
                + dir
                + ": "
                + name
                + " lies between indexed files but "
                + indexName
                + " does not list it; add it to the index (in order) or move it out, then retry");
      }
    }
    return result;
  }

  private void deleteOrphanMetadata(List<String> entries) throws IOException {
    for (String name : entries) {
      if (name.endsWith(MetadataFile.SUFFIX)) {
        String binlog = name.substring(0, name.length() - MetadataFile.SUFFIX.length());
        if (!files.contains(binlog)) {
          delete(name);
          act(deleted() + name + ": the store holds no " + binlog);
          changed = true;
        }
      }
    }
  }

  /** How a deletion is reported: done, or left out of the list and deleted once writes work. */
  private String deleted() {
    return writes ? "deleted " : "left out (to delete once the store accepts writes) ";
  }

  private void delete(String name) throws IOException {
    if (writes) {
      dir.delete(name);
    }
  }

  private void act(String action) {
    LOG.warn("binlog store {}: {}", dir, action);
    actions.add(action);
  }

  List<String> actions() {
    return actions;
  }

  /** The index file's name, {@code null} for an empty store that never had a file. */
  String indexName() {
    return indexName;
  }

  /** The last indexed file if it was missing: the next file to fetch. */
  String missingLast() {
    return missingLast;
  }

  /** True if the index must be rewritten. */
  boolean changed() {
    return changed;
  }
}
