package org.binlogrelay.e2e.campaign;

/**
 * Test side: the job-control signals the campaign sends to a process it started (the relay, a
 * server).
 */
enum Signal {
  /** Freezes the process: it neither reads nor writes, its sockets stay open. */
  STOP,
  /** Lets a stopped process run again. */
  CONT;

  void send(long pid) {
    SystemCommand.run("kill", "-s", name(), Long.toString(pid));
  }
}
