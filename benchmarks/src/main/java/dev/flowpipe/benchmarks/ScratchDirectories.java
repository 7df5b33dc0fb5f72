package dev.flowpipe.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * The temporary directories of one benchmark run (a node's or a store's data: hundreds of MB each), removed when the
 * run's JVM exits. Their top-level {@code *.log} files stay, so a "see .../node.log" in an error can still be read.
 */
final class ScratchDirectories {

  private static final List<Path> CREATED = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> CREATED.forEach(ScratchDirectories::deleteAllButLogs),
        "benchmark-scratch-cleanup"));
  }

  private ScratchDirectories() {}

  /** A new directory under the system's temporary directory, named {@code prefix} and a random suffix. */
  static Path create(String prefix) throws IOException {
    Path directory = Files.createTempDirectory(prefix);
    CREATED.add(directory);
    return directory;
  }

  /** Deletes everything under {@code directory} except its top-level {@code *.log} files; best effort. */
  static void deleteAllButLogs(Path directory) {
    delete(directory, path -> !path.equals(directory)
        && !(directory.equals(path.getParent()) && path.getFileName().toString().endsWith(".log")));
  }

  /** Deletes {@code directory} and everything under it; best effort. */
  static void deleteTree(Path directory) {
    delete(directory, path -> true);
  }

  private static void delete(Path directory, java.util.function.Predicate<Path> which) {
    if (!Files.isDirectory(directory)) {
      return;
    }
    try (Stream<Path> tree = Files.walk(directory)) {
      tree.sorted(Comparator.reverseOrder()).filter(which).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          // a file still held by a process that is shutting down, or a directory it still writes to: left behind
        }
      });
    } catch (IOException | java.io.UncheckedIOException e) {
      System.err.println("could not clean " + directory + ": " + e.getMessage());
    }
  }
}
