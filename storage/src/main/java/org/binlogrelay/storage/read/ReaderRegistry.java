package org.binlogrelay.storage.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;
import org.binlogrelay.storage.Position;

/**
 * Where the connected readers stand, so that retention keeps the files they still need: a reader at
 * {@code binlog.000042:1234} needs {@code binlog.000042} and every later file, and {@link
 * #oldest()} is the smallest such position. A {@link BinlogReader} given this registry in its
 * {@link ReaderOptions} registers when it opens, moves its registration forward as it reads and
 * unregisters when closed.
 *
 * <p>Registering and purging exclude each other ({@link #whilePurging}): a reader registered before
 * a purge decides is protected by it; a purge that ran first may have removed the file a new reader
 * was about to open, which the reader then reports ({@link BinlogReadException.Reason#REMOVED} or
 * {@link java.nio.file.NoSuchFileException}) and the replica is positioned again. Moving forward
 * needs no lock, as it can only lower the protection.
 *
 * <p>Thread-safe.
 */
public final class ReaderRegistry {
  private final Set<Registration> registrations = ConcurrentHashMap.newKeySet();
  private final ReentrantReadWriteLock purgeLock = new ReentrantReadWriteLock();

  /**
   * Registers a reader standing at {@code position}; waits while a purge is deciding or removing
   * files.
   */
  public Registration register(String name, Position position) {
    Registration r =
        new Registration(
            this,
            Objects.requireNonNull(name, "name"),
            Objects.requireNonNull(position, "position"));
    purgeLock.readLock().lock();
    try {
      registrations.add(r);
    } finally {
      purgeLock.readLock().unlock();
    }
    return r;
  }

  /** The smallest position of a registered reader, if any. */
  public Optional<Position> oldest() {
    Position min = null;
    for (Registration r : registrations) {
      Position p = r.position;
      if (min == null || p.isBefore(min)) {
        min = p;
      }
    }
    return Optional.ofNullable(min);
  }

  /** A snapshot of the registered readers. */
  public List<Registration> readers() {
    return new ArrayList<>(registrations);
  }

  /**
   * Runs {@code purge} with no reader registering meanwhile, handing it {@link #oldest()}; for
   * retention, which decides and removes files inside.
   */
  public <T> T whilePurging(Function<Optional<Position>, T> purge) {
    purgeLock.writeLock().lock();
    try {
      return purge.apply(oldest());
    } finally {
      purgeLock.writeLock().unlock();
    }
  }

  /** One reader's entry. Thread-safe. */
  public static final class Registration implements AutoCloseable {
    private final ReaderRegistry registry;
    private final String name;
    private volatile Position position;

    private Registration(ReaderRegistry registry, String name, Position position) {
      this.registry = registry;
      this.name = name;
      this.position = position;
    }

    public String name() {
      return name;
    }

    public Position position() {
      return position;
    }

    /** Moves the reader forward; a position before the current one is refused. */
    public void update(Position next) {
      Objects.requireNonNull(next, "position");
      if (next.isBefore(position)) {
        throw new IllegalArgumentException(
            "reader "
                + name
                + " cannot move back from "
                + position
                + " to "
                + next
                + "; register again instead");
      }
      position = next;
    }

    /** Unregisters; idempotent. */
    @Override
    public void close() {
      registry.registrations.remove(this);
    }

    @Override
    public String toString() {
      return name + "@" + position;
    }
  }
}
