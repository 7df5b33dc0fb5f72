package dev.flowpipe.benchmarks.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bin/flowpipe-importer} as a process of its own (the script ends in {@code exec java}, so its pid is the JVM's
 * and a signal reaches the importer itself). Its output goes to a log; the first "caught up" line is stamped when it
 * is read, with the records it says it imported.
 */
public final class StandaloneImporter implements AutoCloseable {

  public static final Pattern CAUGHT_UP = Pattern.compile("caught up: .*\\((\\d+) records in ([\\d.]+) s");

  private final Process process;
  private final long startedNanos = System.nanoTime();
  private volatile long caughtUpNanos = -1;
  private volatile long caughtUpRecords = -1;

  private StandaloneImporter(Process process, Path log) {
    this.process = process;
    Thread.ofPlatform().daemon().name("importer-output").start(() -> copy(log));
  }

  public static StandaloneImporter start(Path root, Path log, List<String> arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of(root.resolve("bin/flowpipe-importer").toString()));
    command.addAll(arguments);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    return new StandaloneImporter(process, log);
  }

  private void copy(Path log) {
    try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8));
        PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true)) {
      for (String line = output.readLine(); line != null; line = output.readLine()) {
        file.println(line);
        Matcher caughtUp = CAUGHT_UP.matcher(line);
        if (caughtUpNanos < 0 && caughtUp.find()) {
          caughtUpRecords = Long.parseLong(caughtUp.group(1));
          caughtUpNanos = System.nanoTime();
        }
      }
    } catch (IOException e) {
      // the process has ended
    }
  }

  /** Seconds from the process start to its first "caught up" line, -1 before there is one. */
  public double secondsUntilCaughtUp() {
    long at = caughtUpNanos;
    return at < 0 ? -1 : (at - startedNanos) / 1e9;
  }

  /** The records it had imported when it first said it was caught up, -1 before. */
  public long recordsWhenCaughtUp() {
    return caughtUpRecords;
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** SIGTERM (a clean stop: shutdown hooks run) or SIGKILL (a crash); waits until it has exited; its exit status. */
  public int stop(boolean kill) throws InterruptedException {
    if (kill) {
      process.destroyForcibly();
    } else {
      process.destroy();
    }
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("importer " + process.pid() + " still running 60 s after SIG"
          + (kill ? "KILL" : "TERM"));
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop(false);
    }
  }
}
