package org.binlogrelay.e2e.upstream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.binlogrelay.e2e.process.ChildProcesses;

/**
 * Test side: a CA, a server certificate for 127.0.0.1 (subject alternative names IP:127.0.0.1 and
 * DNS:localhost) and a client certificate, made with {@code openssl} in a directory of the test.
 * The client key is written both as PKCS#8 ({@code client-key.pem}) and as PKCS#1 RSA ({@code
 * client-key-rsa.pem}).
 */
record TlsFiles(Path dir) {

  static TlsFiles make(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=binlog-relay test CA");
    for (String who : List.of("server", "client")) {
      openssl(
          dir,
          "req",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          who + "-key.pem",
          "-out",
          who + ".csr",
          "-subj",
          "/CN=" + (who.equals("server") ? "127.0.0.1" : "relay"));
      List<String> sign =
          new ArrayList<>(
              List.of(
                  "x509",
                  "-req",
                  "-in",
                  who + ".csr",
                  "-CA",
                  "ca.pem",
                  "-CAkey",
                  "ca-key.pem",
                  "-CAcreateserial",
                  "-out",
                  who + "-cert.pem",
                  "-days",
                  "2"));
      if (who.equals("server")) {
        sign.addAll(List.of("-extfile", "server.ext"));
      }
      openssl(dir, sign.toArray(String[]::new));
    }
    openssl(dir, "rsa", "-in", "client-key.pem", "-traditional", "-out", "client-key-rsa.pem");
    return new TlsFiles(dir);
  }

  /** Another CA, that signed nothing the servers use. */
  static Path otherCa(Path dir) throws IOException {
    Files.createDirectories(dir);
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "other-ca-key.pem",
        "-out",
        "other-ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=some other CA");
    return dir.resolve("other-ca.pem");
  }

  Path ca() {
    return dir.resolve("ca.pem");
  }

  Path serverCert() {
    return dir.resolve("server-cert.pem");
  }

  Path serverKey() {
    return dir.resolve("server-key.pem");
  }

  Path clientCert() {
    return dir.resolve("client-cert.pem");
  }

  Path clientKeyPkcs8() {
    return dir.resolve("client-key.pem");
  }

  Path clientKeyPkcs1() {
    return dir.resolve("client-key-rsa.pem");
  }

  private static void openssl(Path dir, String... args) {
    List<String> command = new ArrayList<>();
    command.add("openssl");
    command.addAll(List.of(args));
    ChildProcesses.run(command, dir, dir.resolve("openssl.log"), null, Duration.ofSeconds(60))
        .requireSuccess("openssl " + String.join(" ", args));
  }
}
