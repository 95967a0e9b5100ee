package org.binlogrelay.e2e.servers;

import java.util.Objects;

/**
 * A user and password that every server of the harness has, whatever the backend.
 *
 * <p>{@link #TEST} has all privileges with grant option and is what the harness itself, sysbench
 * and the tests log in as. {@link #REPLICATION} has {@code REPLICATION SLAVE, REPLICATION CLIENT}
 * only and is what replicas (and the relay) log in as; on MySQL both use {@code
 * caching_sha2_password}.
 */
public record Credentials(String user, String password) {

  public static final Credentials TEST = new Credentials("test", "test-pass");
  public static final Credentials REPLICATION = new Credentials("repl", "repl-pass");

  public Credentials {
    Objects.requireNonNull(user, "user");
    Objects.requireNonNull(password, "password");
  }

  @Override
  public String toString() {
    return user;
  }
}
