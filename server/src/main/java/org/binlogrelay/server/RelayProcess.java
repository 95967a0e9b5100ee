package org.binlogrelay.server;

import org.binlogrelay.storage.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link Relay} as this JVM's process: starts it and waits until it is closed. A shutdown
 * hook closes it on SIGTERM or SIGINT (replicas first, then upstream, then the store) and ends the
 * process with status 0 if everything stopped cleanly, 1 otherwise (the JVM would otherwise report
 * 143 or 130 for the signal). A relay that failed to start leaves the status to {@link RelayMain}
 * (1). Uses the system clocks.
 */
final class RelayProcess implements RelayMain.Launcher {
  private static final Logger LOG = LoggerFactory.getLogger(RelayProcess.class);

  @Override
  public int run(RelayConfig config) throws RelayStartException, InterruptedException {
    Relay relay = new Relay(config, Time.SYSTEM);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(relay), "relay-shutdown"));
    relay.start();
    relay.awaitClosed();
    return relay.closedCleanly() ? RelayMain.OK : RelayMain.FAILED;
  }

  /** On the shutdown hook's thread. */
  private static void stop(Relay relay) {
    Relay.State state = relay.state();
    if (state == Relay.State.CLOSED || state == Relay.State.NEW) {
      return; // the process ends for another reason (a failed start): keep its exit status
    }
    LOG.info("shutdown requested (SIGTERM or SIGINT)");
    relay.close();
    Runtime.getRuntime().halt(relay.closedCleanly() ? RelayMain.OK : RelayMain.FAILED);
  }
}
