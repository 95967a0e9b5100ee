package org.binlogrelay.cli;

import java.util.Iterator;
import java.util.List;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code relayctl completion bash}: prints picocli's generated completion script (also works in
 * zsh).
 */
@Command(
    name = "completion",
    description = "Prints a shell completion script for relayctl (bash; zsh with bashcompinit).",
    footer = {
      "",
      "Examples:",
      "  relayctl completion bash > ~/.local/share/bash-completion/completions/relayctl",
      "  sudo sh -c 'relayctl completion bash > /etc/bash_completion.d/relayctl'",
      "  source <(relayctl completion bash)"
    })
final class CompletionCommand extends RelayCommand {
  @Parameters(
      paramLabel = "SHELL",
      defaultValue = "bash",
      completionCandidates = Shells.class,
      description =
          "The shell: bash (default; zsh loads it too, after 'autoload -U bashcompinit && bashcompinit').")
  String shell;

  static final class Shells implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return List.of("bash", "zsh").iterator();
    }
  }

  @Override
  public Integer call() {
    if (!"bash".equals(shell) && !"zsh".equals(shell)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "no completion for shell '" + shell + "'; bash and zsh are supported");
    }
    out().print(AutoComplete.bash("relayctl", spec.root().commandLine()));
    out().flush();
    return Relayctl.OK;
  }
}
