package dev.flowpipe.importer;

import dev.flowpipe.testsupport.NodeProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The standalone importer ({@link ImporterMain}) as a process of its own, on this JVM's class path, as
 * {@code bin/flowpipe-importer} runs it: what a SIGKILL really interrupts.
 */
final class ImporterProcess implements AutoCloseable {

  private final Process process;
  private final Path log;

  private ImporterProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /** Starts {@code ImporterMain} with these arguments; its output goes to {@code log}. */
  static ImporterProcess start(List<String> arguments, Path log) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx256m");
    command.addAll(NodeProcess.testJitOptions()); // C1 only, as the tests' other child JVMs
    Path logback = Path.of("logback.xml").toAbsolutePath(); // the module's, as bin/flowpipe-importer uses it
    if (Files.isRegularFile(logback)) {
      command.add("-Dlogback.configurationFile=" + logback);
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ImporterMain.class.getName());
    command.addAll(arguments);
    try {
      return new ImporterProcess(new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(log.toFile()).start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL: no shutdown hook, no last flush; waits until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("importer process " + process.pid() + " survived SIGKILL");
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** The exit status, waiting at most {@code seconds}; -1 if it is still running then. */
  int awaitExit(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
  }

  /** The process's output so far, for failure messages. */
  String output() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
