package org.binlogrelay.e2e.servers.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on the loopback interface, found by binding port 0 and releasing it. Another
 * process may take the port before the server binds it; {@link LocalServer} then starts again on a
 * new port. Ports 3380-3399 are never handed out (they are used by hand on shared development
 * machines), nor is any port twice in one JVM. Thread-safe.
 */
public final class FreePorts {

  private static final int RESERVED_FIRST = 3380;
  private static final int RESERVED_LAST = 3399;

  private final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

  public int next() {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(false);
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException(
            "Cannot bind an ephemeral port on the loopback interface", e);
      }
      boolean reserved = port >= RESERVED_FIRST && port <= RESERVED_LAST;
      if (!reserved && handedOut.add(port)) {
        return port;
      }
    }
    throw new IllegalStateException("No free loopback port found in 100 attempts");
  }
}
