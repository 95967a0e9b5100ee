package org.binlogrelay.storage.tier;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Not a failure: the file to open is archived and its local copy is not there yet. Thrown by {@link
 * TieredBinlog#open} (and so by the lookups and {@code BinlogReader.open} that open files) with the
 * fetch it started or joined; open the file again once {@link #fetch()} completes. The future may
 * already be complete, also exceptionally: then the archive could not give the file, and its
 * exception says why.
 *
 * <p>A reader that meets it at a file change waits by itself ({@code BinlogReader.poll()} returns
 * {@code CaughtUp}); only callers that open a file directly see it.
 *
 * <p>Carries no stack trace (it is a signal, thrown in the normal course of reading). Immutable.
 */
public final class ArchiveFetchPending extends IOException {
  private static final long serialVersionUID = 1L;

  private final String file;
  private final transient CompletableFuture<Path> fetch;

  public ArchiveFetchPending(String file, CompletableFuture<Path> fetch) {
    super(
        file
            + " is archived and its local copy is being fetched; open it again when the fetch completes");
    this.file = Objects.requireNonNull(file, "file");
    this.fetch = Objects.requireNonNull(fetch, "fetch");
  }

  /** The archived file being fetched. */
  public String file() {
    return file;
  }

  /** The fetch: completes with the local copy's path, or exceptionally if the fetch failed. */
  public CompletableFuture<Path> fetch() {
    return fetch;
  }

  /** A future completed (normally) once the fetch is over, successful or not. */
  public CompletableFuture<Void> whenDone() {
    return fetch.handle((path, failure) -> null);
  }

  /** The fetch's failure, unwrapped; {@code null} while it runs or if it succeeded. */
  public Throwable failure() {
    if (!fetch.isCompletedExceptionally()) {
      return null;
    }
    Throwable[] cause = new Throwable[1];
    fetch.whenComplete((path, failure) -> cause[0] = failure);
    Throwable t = cause[0];
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
