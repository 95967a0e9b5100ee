package org.binlogrelay.e2e.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.binlogrelay.protocol.testing.Eventually.eventually;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.binlogrelay.cli.Relayctl;
import org.binlogrelay.e2e.process.ChildProcesses;
import org.binlogrelay.e2e.process.CommandResult;
import org.binlogrelay.e2e.servers.DatabaseServer;
import org.binlogrelay.e2e.servers.Provisioning;
import org.binlogrelay.e2e.servers.ServerException;
import org.binlogrelay.e2e.servers.ServerFarm;
import org.binlogrelay.e2e.servers.ServerFarmExtension;
import org.binlogrelay.e2e.servers.ServerSpec;
import org.binlogrelay.e2e.servers.ServerVersion;
import org.binlogrelay.e2e.upstream.RelayMainChild;
import org.binlogrelay.server.RelayMain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Point-in-time recovery from the relay's binlogs, end to end: a MySQL 9.7 primary (small {@code
 * max_binlog_size}, so the binlog spans several files) followed by the relay ({@link RelayMain} as
 * a child process); a {@code mysqldump --single-transaction --set-gtid-purged=ON} backup, more
 * writes, every table's {@code CHECKSUM TABLE}, an accidental {@code DROP TABLE}, more writes.
 * Then, on a fresh MySQL 9.7 server: the backup restored, {@code relayctl pitr ... --write DIR} (in
 * this JVM, as {@code main} runs it), and the files applied with the real {@code mysqlbinlog |
 * mysql} of the provisioned chroot. Every table's checksum must equal the primary's before the
 * drop, the dropped table exist, nothing after the stop be applied ({@code gtid_executed} is the
 * plan's set). Once stopping before the DROP's GTID, once by the time just before it.
 */
@ExtendWith(ServerFarmExtension.class)
class PitrIT {
  private static final Logger LOG = LoggerFactory.getLogger(PitrIT.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<String> TABLES = List.of("p.orders", "p.customers", "p.audit");

  @TempDir Path dir;

  private RelayMainChild relay;
  private Path work;

  @AfterEach
  void cleanUp() throws IOException {
    if (relay != null) {
      relay.kill();
    }
    if (work != null && Files.exists(work)) {
      try (Stream<Path> all = Files.walk(work)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  @Test
  void restoreThenRollForwardToJustBeforeTheDrop(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MYSQL_9_7).named("primary").withMaxBinlogSize(64 * 1024));
    DatabaseServer target = farm.start(ServerVersion.MYSQL_9_7, "restore-target");
    Path root = mysqlRoot();
    // The client tools run in the chroot: the files they read live under it.
    work = Files.createDirectories(root.resolve("tmp").resolve("pitr-it-" + UUID.randomUUID()));
    String inChroot = "/" + root.relativize(work);

    primary.execute(
        "CREATE DATABASE p",
        "CREATE TABLE p.orders (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))",
        "CREATE TABLE p.customers (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(200))",
        "CREATE TABLE p.audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(200))");
    write(primary, "p.orders", "v", 50);
    write(primary, "p.customers", "name", 50);
    relay =
        RelayMainChild.start(
            primary, primary.address(), dir, dir.resolve("relay-data"), 0, List.of(), Map.of());

    // The backup, then enough writes for several binlog files.
    chrootShell(
            root,
            "mysqldump --no-defaults --protocol=TCP -h127.0.0.1 -P"
                + primary.address().port()
                + " -u"
                + primary.credentials().user()
                + " -p"
                + primary.credentials().password()
                + " --single-transaction --set-gtid-purged=ON --databases p > "
                + inChroot
                + "/backup.sql")
        .requireSuccess("mysqldump");
    for (int i = 0; i < 6; i++) {
      write(primary, "p.orders", "v", 60);
      write(primary, "p.customers", "name", 30);
      write(primary, "p.audit", "what", 40);
    }
    primary.execute("UPDATE p.customers SET name = CONCAT(name, '!') WHERE id % 3 = 0");
    Map<String, String> beforeDrop = checksums(primary);
    Instant beforeDropTime = Instant.now();
    // the DROP commits at least 20 ms later by the clock the primary shares with this test
    eventually(
        Duration.ofSeconds(1),
        "the clock 20 ms past " + beforeDropTime,
        Instant::now,
        t -> t.isAfter(beforeDropTime.plusMillis(20)));
    primary.execute("DROP TABLE p.customers");
    String uuid = primary.queryValue("SELECT @@server_uuid");
    String dropGtid = uuid + ":" + lastTransaction(primary.executedGtidSet(), uuid);
    write(primary, "p.orders", "v", 40);
    write(primary, "p.audit", "what", 40);
    String primaryFinal = primary.executedGtidSet().replaceAll("\\s", "");
    assertThat(primary.queryRows("SHOW BINARY LOGS").size()).as("binlog files").isGreaterThan(3);
    await(
        "the relay to have the primary's GTIDs",
        () ->
            relayctl("gtid", "--json")
                .json()
                .path("executed")
                .asText()
                .replaceAll("\\s", "")
                .equals(primaryFinal));

    // Case 1: stop right before the DROP's GTID.
    recover(target, root, inChroot, "by-gtid", beforeDrop, "--stop-before-gtid", dropGtid);
    // Case 2: the same server made fresh again, stop by the time just before the DROP.
    recover(
        target, root, inChroot, "by-time", beforeDrop, "--until-time", beforeDropTime.toString());
  }

  /**
   * The same on MariaDB 10.11 with the host's MariaDB tools: a {@code mariadb-dump --gtid} backup,
   * its {@code gtid_slave_pos} as the backup set, {@code mariadb-binlog --start-position=P ... |
   * mariadb} as relayctl prints it. By GTID, then by a time on a whole-second boundary (MariaDB's
   * binlog has commit times in seconds).
   */
  @Test
  void mariadbRestoreThenRollForward(ServerFarm farm) throws Exception {
    DatabaseServer primary =
        farm.start(
            ServerSpec.of(ServerVersion.MARIADB_10_11)
                .named("primary")
                .withMaxBinlogSize(64 * 1024));
    DatabaseServer target = farm.start(ServerVersion.MARIADB_10_11, "restore-target");
    work = Files.createDirectories(dir.resolve("work"));
    primary.execute(
        "CREATE DATABASE p",
        "CREATE TABLE p.orders (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(200))",
        "CREATE TABLE p.customers (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(200))",
        "CREATE TABLE p.audit (id INT AUTO_INCREMENT PRIMARY KEY, what VARCHAR(200))");
    write(primary, "p.orders", "v", 50);
    write(primary, "p.customers", "name", 50);
    relay =
        RelayMainChild.start(
            primary, primary.address(), dir, dir.resolve("relay-data"), 0, List.of(), Map.of());
    hostShell(
            Provisioning.executable("mariadb-dump", "mariadb-dump (MariaDB client)")
                + " --no-defaults --protocol=TCP -h127.0.0.1 -P"
                + primary.address().port()
                + " -u"
                + primary.credentials().user()
                + " -p"
                + primary.credentials().password()
                + " --single-transaction --gtid --master-data=2 --databases p > "
                + work.resolve("backup.sql"))
        .requireSuccess("mariadb-dump");
    Matcher pos =
        Pattern.compile("gtid_slave_pos='([^']*)'")
            .matcher(Files.readString(work.resolve("backup.sql")));
    assertThat(pos.find()).as("the dump's gtid_slave_pos").isTrue();
    String backup = pos.group(1);
    for (int i = 0; i < 6; i++) {
      write(primary, "p.orders", "v", 60);
      write(primary, "p.customers", "name", 30);
      write(primary, "p.audit", "what", 40);
    }
    primary.execute("UPDATE p.customers SET name = CONCAT(name, '!') WHERE id % 3 = 0");
    Map<String, String> beforeDrop = checksums(primary);
    // A whole second after the last write, so that a stop by time in seconds falls between.
    Instant lastWrite = Instant.now();
    Instant boundary = lastWrite.plusSeconds(1).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    eventually(
        Duration.ofSeconds(3),
        "the clock 50 ms past " + boundary,
        Instant::now,
        t -> !t.isBefore(boundary.plusMillis(50)));
    primary.execute("DROP TABLE p.customers");
    String dropGtid = primary.queryValue("SELECT @@gtid_binlog_pos");
    write(primary, "p.orders", "v", 40);
    write(primary, "p.audit", "what", 40);
    String primaryFinal = primary.queryValue("SELECT @@gtid_binlog_pos");
    assertThat(primary.queryRows("SHOW BINARY LOGS").size()).as("binlog files").isGreaterThan(3);
    await(
        "the relay to have the primary's GTIDs",
        () ->
            relayctl("gtid", "--json")
                .json()
                .path("executed")
                .asText()
                .replaceAll("\\s", "")
                .contains(primaryFinal));

    mariadbRecover(target, "by-gtid", backup, beforeDrop, "--stop-before-gtid", dropGtid);
    mariadbRecover(target, "by-time", backup, beforeDrop, "--until-time", boundary.toString());
  }

  private void mariadbRecover(
      DatabaseServer target,
      String name,
      String backup,
      Map<String, String> expected,
      String... stop)
      throws Exception {
    target.execute("DROP DATABASE IF EXISTS p", "RESET MASTER");
    String client =
        Provisioning.executable("mariadb", "mariadb (MariaDB client)")
            + " --no-defaults --protocol=TCP -h127.0.0.1 -P"
            + target.address().port()
            + " -u"
            + target.credentials().user()
            + " -p"
            + target.credentials().password();
    // The restore is not binlogged (its GTIDs would clash with the primary's in strict mode).
    hostShell("(echo 'SET sql_log_bin=0;'; cat " + work.resolve("backup.sql") + ") | " + client)
        .requireSuccess("restoring the backup");
    List<String> args = new ArrayList<>(List.of("pitr"));
    args.addAll(List.of(stop));
    args.addAll(List.of("--backup-gtids", backup));
    JsonNode planJson = relayctl(concat(args, "--json")).ok().json();
    LOG.info("mariadb {}: plan {}", name, planJson);
    Path out = work.resolve(name);
    Result written = relayctl(concat(args, "--write", out.toString())).ok();
    String apply =
        written
            .out()
            .lines()
            .map(String::strip)
            .filter(l -> l.startsWith("mariadb-binlog "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no apply command in\n" + written.out()));
    String binlog = apply.substring(0, apply.indexOf(" | "));
    long from = planJson.path("start").path("position").asLong();
    assertThat(binlog)
        .startsWith(from > 4 ? "mariadb-binlog --start-position=" + from + " " : "mariadb-binlog ");
    hostShell(
            binlog.replaceFirst(
                    "^mariadb-binlog",
                    Provisioning.executable("mariadb-binlog", "mariadb-binlog") + " --no-defaults")
                + " | "
                + client)
        .requireSuccess("mariadb-binlog | mariadb");
    assertThat(checksums(target)).as(name + ": the tables as before the drop").isEqualTo(expected);
    assertThat(target.queryValue("SELECT @@gtid_binlog_pos"))
        .as(name + ": nothing after the stop applied")
        .isEqualTo(planJson.path("stop").path("lastGtid").asText());
  }

  private CommandResult hostShell(String script) {
    return ChildProcesses.run(
        List.of("/bin/sh", "-c", script),
        dir,
        dir.resolve("shell-" + System.nanoTime() + ".out"),
        null,
        Duration.ofMinutes(2));
  }

  /**
   * Restores the backup on {@code target} (emptied first), plans and downloads with relayctl,
   * applies with mysqlbinlog | mysql, and checks the result.
   */
  private void recover(
      DatabaseServer target,
      Path root,
      String inChroot,
      String name,
      Map<String, String> expected,
      String... stop)
      throws Exception {
    long started = System.nanoTime();
    target.execute("DROP DATABASE IF EXISTS p", "RESET BINARY LOGS AND GTIDS");
    chrootShell(root, client(target) + " < " + inChroot + "/backup.sql")
        .requireSuccess("restoring the backup");
    String backup = target.executedGtidSet().replaceAll("\\s", "");
    assertThat(backup).as("the backup's GTID set").isNotEmpty();

    List<String> args = new ArrayList<>(List.of("pitr"));
    args.addAll(List.of(stop));
    args.addAll(List.of("--backup-gtids", backup));
    Result plan = relayctl(concat(args, "--json")).ok();
    JsonNode planJson = plan.json();
    LOG.info("{}: plan {}", name, planJson);
    Path out = work.resolve(name);
    Result written = relayctl(concat(args, "--write", out.toString())).ok();
    assertThat(written.out()).contains("Stop:  ").contains("mysqlbinlog ");
    List<String> files = new ArrayList<>();
    for (JsonNode f : planJson.path("files")) {
      Path file = out.resolve(f.path("name").asText());
      assertThat(Files.size(file)).as(file.toString()).isEqualTo(f.path("to").asLong());
      files.add(inChroot + "/" + name + "/" + f.path("name").asText());
    }
    assertThat(files).isNotEmpty();
    // The command relayctl printed, with this test's connection options.
    String apply =
        written.out().lines().filter(l -> l.strip().startsWith("mysqlbinlog ")).findFirst().get();
    String mysqlbinlog = apply.strip().substring(0, apply.strip().indexOf(" | "));
    assertThat(mysqlbinlog.replace(work.toString(), inChroot))
        .isEqualTo("mysqlbinlog " + String.join(" ", files));
    chrootShell(
            root, "mysqlbinlog --no-defaults " + String.join(" ", files) + " | " + client(target))
        .requireSuccess("mysqlbinlog | mysql");

    assertThat(checksums(target)).as(name + ": the tables as before the drop").isEqualTo(expected);
    assertThat(target.executedGtidSet().replaceAll("\\s", ""))
        .as(name + ": nothing after the stop applied")
        .isEqualTo(planJson.path("stop").path("gtidExecuted").asText().replaceAll("\\s", ""));
    LOG.info(
        "{}: {} files, {} bytes applied in {} ms",
        name,
        files.size(),
        planJson.path("bytesToApply").asLong(),
        Duration.ofNanos(System.nanoTime() - started).toMillis());
  }

  private static String[] concat(List<String> args, String... more) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(more));
    return all.toArray(String[]::new);
  }

  private static String client(DatabaseServer server) {
    return "mysql --no-defaults --protocol=TCP -h127.0.0.1 -P"
        + server.address().port()
        + " -u"
        + server.credentials().user()
        + " -p"
        + server.credentials().password();
  }

  private static Map<String, String> checksums(DatabaseServer server) {
    Map<String, String> sums = new LinkedHashMap<>();
    for (String table : TABLES) {
      sums.put(table, server.queryRows("CHECKSUM TABLE " + table).get(0).get("Checksum"));
    }
    return sums;
  }

  /** The last transaction number of {@code uuid} in a MySQL GTID set. */
  private static long lastTransaction(String set, String uuid) {
    for (String part : set.replaceAll("\\s", "").split(",")) {
      if (part.startsWith(uuid + ":")) {
        String last = part.substring(part.lastIndexOf(':') + 1);
        return Long.parseLong(last.contains("-") ? last.substring(last.indexOf('-') + 1) : last);
      }
    }
    throw new AssertionError("no GTID of " + uuid + " in " + set);
  }

  private static void write(DatabaseServer server, String table, String column, int rows) {
    String[] inserts = new String[rows];
    for (int i = 0; i < rows; i++) {
      inserts[i] = "INSERT INTO " + table + " (" + column + ") VALUES (REPEAT(UUID(), 5))";
    }
    server.execute(inserts);
  }

  private static Path mysqlRoot() {
    Path root = Provisioning.cacheDir().resolve("mysql-sid-root");
    if (!Files.isExecutable(root.resolve("usr/bin/mysqlbinlog"))
        || !Files.isExecutable(root.resolve("usr/bin/mysqldump"))) {
      throw new ServerException(
          "MySQL client tools are not installed in " + root + ". " + Provisioning.hint());
    }
    return root;
  }

  private CommandResult chrootShell(Path root, String script) {
    return ChildProcesses.run(
        List.of(
            Provisioning.executable("chroot", "chroot (coreutils)").toString(),
            root.toString(),
            "/bin/sh",
            "-c",
            script),
        dir,
        dir.resolve("shell-" + System.nanoTime() + ".out"),
        null,
        Duration.ofMinutes(2));
  }

  /** One relayctl run: exit code and both streams. */
  record Result(int code, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + this, e);
      }
    }

    Result ok() {
      assertThat(code).as(toString()).isEqualTo(Relayctl.OK);
      return this;
    }

    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
  }

  private Result relayctl(String... args) {
    List<String> all = new ArrayList<>(List.of("--timeout", "60s"));
    all.addAll(List.of(args));
    RelayMainChild.RelayctlRun run = relay.relayctl(all.toArray(String[]::new));
    Result result = new Result(run.code(), run.out(), run.err());
    LOG.debug("relayctl {} -> {}", String.join(" ", args), result);
    return result;
  }

  private void await(String what, Supplier<Boolean> check) throws Exception {
    try {
      eventually(
          WAIT,
          what,
          () -> {
            if (!relay.isAlive()) {
              throw new AssertionError(
                  "the relay exited while waiting for " + what + "\n" + relay.logTail(40));
            }
            try {
              return check.get();
            } catch (AssertionError | RuntimeException e) {
              LOG.debug("waiting for {}: {}", what, e.toString());
              return false;
            }
          },
          done -> done);
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "\n" + relay.logTail(40), e);
    }
  }
}
