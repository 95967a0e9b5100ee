package org.binlogrelay.e2e.servers;

import java.util.Locale;
import org.binlogrelay.e2e.servers.docker.DockerServerBackend;
import org.binlogrelay.e2e.servers.local.LocalServerBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * Chooses the JVM's {@link ServerBackend} from the system property {@code binlogrelay.servers}
 * (Maven: {@code -Dservers=}): {@code local} (the default), {@code docker}, or {@code auto} (Docker
 * if an engine is reachable, else local). The default is {@code local}, not {@code auto}: an engine
 * running on the machine (as on CI, for the docker-backend subset) must not silently move the whole
 * suite into containers. The backend lives until the JVM exits; its shutdown hook cleans up.
 */
public final class ServerBackends {

  public static final String PROPERTY = "binlogrelay.servers";

  private static final Logger LOG = LoggerFactory.getLogger(ServerBackends.class);
  private static ServerBackend shared;

  private ServerBackends() {}

  public static synchronized ServerBackend shared() {
    if (shared == null) {
      shared = create(System.getProperty(PROPERTY, "local"));
    }
    return shared;
  }

  static ServerBackend create(String choice) {
    String normalized = choice.isBlank() ? "local" : choice.strip().toLowerCase(Locale.ROOT);
    ServerBackend backend =
        switch (normalized) {
          case "local" -> new LocalServerBackend();
          case "docker" -> new DockerServerBackend();
          case "auto" ->
              DockerClientFactory.instance().isDockerAvailable()
                  ? new DockerServerBackend()
                  : new LocalServerBackend();
          default ->
              throw new IllegalArgumentException(
                  "Invalid value '"
                      + choice
                      + "' of "
                      + PROPERTY
                      + " (Maven: -Dservers=): expected auto, local or docker");
        };
    LOG.info("Test servers: {} backend ({}={})", backend.name(), PROPERTY, normalized);
    return backend;
  }
}
