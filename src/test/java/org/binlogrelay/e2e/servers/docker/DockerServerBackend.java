package org.binlogrelay.e2e.servers.docker;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Container;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.HostAndPort;
import org.binlogrelay.e2e.servers.ServerBackend;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.servers.local.FreePorts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * Servers in Docker containers through Testcontainers, from the image of each series ({@link
 * ServerVersion#dockerImage()}: the locally built {@code binlog-relay-ci/*} images by default, the
 * official {@code mysql} / {@code mariadb} images or others by system property). Each container
 * shares the host's network and listens on a free port of 127.0.0.1 ({@link DockerServer}), so the
 * tests, the relay under test and the servers reach each other as with local processes.
 *
 * <p>A Docker engine is required: without one, or without a series' image, starting a server fails
 * with a message; nothing is skipped. Containers and volumes are named {@code
 * binlog-relay-e2e-<pid>-<server>} and labelled {@value DockerServer#LABEL}; Testcontainers' Ryuk
 * reaper is not relied on (it cannot be pulled where no registry is reachable): {@link #close()}, a
 * shutdown hook, and the next JVM's start-up (for a JVM that was SIGKILLed) delete them.
 *
 * <p>Plain {@code GenericContainer}s rather than Testcontainers' MySQL/MariaDB modules: those check
 * readiness with their own JDBC driver and create a non-root user limited to one schema; the
 * harness needs its own users and options on both flavours alike. Thread-safe.
 */
public final class DockerServerBackend implements ServerBackend {

  private static final Logger LOG = LoggerFactory.getLogger(DockerServerBackend.class);
  private static final String PREFIX = "binlog-relay-e2e-";
  private static final int PORT_ATTEMPTS = 5;

  private final String containerPrefix = PREFIX + ProcessHandle.current().pid() + "-";
  private final AtomicInteger sequence = new AtomicInteger(1);
  private final Set<DockerServer> servers = ConcurrentHashMap.newKeySet();
  private final Set<String> checkedImages = ConcurrentHashMap.newKeySet();
  private final FreePorts ports = new FreePorts();
  private final Thread shutdownHook = new Thread(this::close, "docker-server-cleanup");

  /**
   * @throws ServerException when no Docker engine answers
   */
  public DockerServerBackend() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      throw new ServerException(
          "The docker server backend (-Dservers=docker) needs a Docker engine, and Testcontainers"
              + " found none (see its log above; DOCKER_HOST, /var/run/docker.sock). Start one, or"
              + " run with -Dservers=local.");
    }
    deleteLeftoversOfDeadJvms();
    Runtime.getRuntime().addShutdownHook(shutdownHook);
  }

  @Override
  public String name() {
    return "docker";
  }

  @Override
  public DatabaseServer start(ServerSpec spec) {
    requireImage(spec.version());
    int number = sequence.getAndIncrement();
    int serverId = spec.serverId() != 0 ? spec.serverId() : number;
    String name = spec.name() + "-" + number;
    for (int attempt = 1; ; attempt++) {
      DockerServer server =
          new DockerServer(name, containerPrefix, spec, serverId, ports.next(), servers::remove);
      servers.add(server);
      try {
        server.create();
        return server;
      } catch (DockerServer.PortTakenException e) {
        server.close();
        if (attempt == PORT_ATTEMPTS) {
          throw new ServerException(
              name + " found its port taken " + PORT_ATTEMPTS + " times in a row", e);
        }
        LOG.warn("{}: {}; trying another port", name, e.getMessage());
      } catch (RuntimeException e) {
        server.close();
        throw e;
      }
    }
  }

  /**
   * Fails with a message naming the property that chooses the image when the image is not on this
   * machine and cannot be pulled: a {@code binlog-relay-ci/} image is built here, never pulled;
   * others are pulled if a registry is reachable.
   */
  private void requireImage(ServerVersion version) {
    String image = version.dockerImage();
    if (checkedImages.contains(image)) {
      return;
    }
    try {
      docker().inspectImageCmd(image).exec();
    } catch (NotFoundException e) {
      if (image.startsWith("binlog-relay-ci/")) {
        throw new ServerException(
            "Image "
                + image
                + " of "
                + version
                + " is not on this machine: build the local images with scripts/docker/build-images,"
                + " or choose another image with -D"
                + version.dockerImageProperty()
                + "=IMAGE (e.g. the official "
                + version.officialDockerImage()
                + ")",
            e);
      }
      LOG.info("Image {} is not on this machine; Testcontainers pulls it", image);
    }
    checkedImages.add(image);
  }

  /** 127.0.0.1: the servers share the host's network. */
  @Override
  public HostAndPort hostPortForServers(int port) {
    return new HostAndPort("127.0.0.1", port);
  }

  /** The servers started here and not yet closed. */
  public List<DockerServer> servers() {
    return List.copyOf(servers);
  }

  @Override
  public void close() {
    for (DockerServer server : List.copyOf(servers)) {
      try {
        server.close();
      } catch (RuntimeException e) {
        LOG.warn("Cannot delete the container of {}: {}", server.name(), e.getMessage());
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException e) {
      // called by the hook itself, during shutdown
    }
  }

  /** Containers and volumes of earlier test JVMs that are no longer alive (SIGKILLed). */
  private void deleteLeftoversOfDeadJvms() {
    DockerClient docker = docker();
    List<Container> labelled =
        docker
            .listContainersCmd()
            .withShowAll(true)
            .withLabelFilter(List.of(DockerServer.LABEL))
            .exec();
    for (Container container : labelled) {
      String owner = container.getLabels().getOrDefault(DockerServer.LABEL, "");
      if (owner.startsWith(PREFIX) && !alive(owner)) {
        LOG.info("Deleting container {} left by a dead test JVM", List.of(container.getNames()));
        docker.removeContainerCmd(container.getId()).withForce(true).withRemoveVolumes(true).exec();
        if (container.getMounts() != null) {
          container.getMounts().stream()
              .filter(m -> m.getName() != null && m.getName().startsWith(owner))
              .forEach(m -> removeVolumeQuietly(docker, m.getName()));
        }
      }
    }
  }

  private static void removeVolumeQuietly(DockerClient docker, String volume) {
    try {
      docker.removeVolumeCmd(volume).exec();
    } catch (RuntimeException e) {
      LOG.warn("Cannot delete volume {}: {}", volume, e.getMessage());
    }
  }

  /** Whether the JVM of a container prefix {@code binlog-relay-e2e-<pid>-} still runs. */
  private static boolean alive(String owner) {
    String pid = owner.substring(PREFIX.length()).replaceAll("-$", "");
    try {
      return ProcessHandle.of(Long.parseLong(pid)).isPresent();
    } catch (NumberFormatException e) {
      return true; // not ours to judge
    }
  }

  private static DockerClient docker() {
    return DockerClientFactory.instance().client();
  }

  @Override
  public String toString() {
    return "docker backend (containers " + containerPrefix + "*)";
  }
}
