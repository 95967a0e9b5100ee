package org.binlogrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time and resident memory of a local process, from {@code /proc/PID/stat} (fields 14 and 15:
 * utime and stime in clock ticks, 100 per second on Linux) and {@code /proc/PID/status} ({@code
 * VmRSS}). Linux only. Not thread-safe: the sampler's thread.
 */
final class ProcessSampler {
  private static final double TICKS_PER_SECOND = 100;

  private final long pid;
  private double lastCpuSeconds = -1;
  private long lastNanos;

  ProcessSampler(long pid) {
    this.pid = pid;
  }

  long pid() {
    return pid;
  }

  /** Total CPU seconds the process has used. */
  double cpuSeconds() throws IOException {
    String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
  }

  /** Resident set size in bytes. */
  long rssBytes() throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
      }
    }
    throw new IOException("/proc/" + pid + "/status has no VmRSS line");
  }

  /** CPU use since the previous call in percent of one core; -1 on the first call. */
  double cpuPercent(long nowNanos) throws IOException {
    double cpu = cpuSeconds();
    double percent =
        lastCpuSeconds < 0 ? -1 : (cpu - lastCpuSeconds) / ((nowNanos - lastNanos) / 1e9) * 100;
    lastCpuSeconds = cpu;
    lastNanos = nowNanos;
    return percent;
  }

  /** Fails early with a clear message if there is no such process. */
  static ProcessSampler of(long pid) throws IOException {
    if (!Files.isReadable(Path.of("/proc", Long.toString(pid), "stat"))) {
      throw new IOException(
          "no process "
              + pid
              + " to sample (/proc/"
              + pid
              + "/stat is not readable; --source-pid"
              + " needs a local Linux process)");
    }
    return new ProcessSampler(pid);
  }
}
