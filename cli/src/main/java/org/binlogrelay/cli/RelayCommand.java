package org.binlogrelay.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every relayctl command shares: the root command's options and environment, the client they
 * make, the output stream, and printing JSON or lines. A command returns its exit code. Not
 * thread-safe.
 */
abstract class RelayCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  final Relayctl root() {
    return (Relayctl) spec.root().userObject();
  }

  final AdminClient client() {
    return root().client();
  }

  final Environment environment() {
    return root().environment();
  }

  final PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** The relay's JSON answer as it is, pretty-printed. */
  final int printJson(JsonNode answer) {
    try {
      out().println(AdminClient.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(answer));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a parsed JSON tree did not print", e);
    }
    out().flush();
    return Relayctl.OK;
  }

  final int print(List<String> lines) {
    lines.forEach(out()::println);
    out().flush();
    return Relayctl.OK;
  }

  final int width() {
    return environment().terminal().width();
  }
}
