package dev.flowpipe.testsupport;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

/**
 * The temporary directories of one test or benchmark JVM (a node's or a store's data: hundreds of MB each), removed
 * when that JVM exits: left behind, many runs on one machine filled its disk past the stores' watermarks. Their
 * top-level {@code *.log} files stay, so a "see .../node.log" in an error can still be read. Plain {@code java.nio}
 * only: some modules put this jar on their test class path without its dependencies, and a shutdown hook that cannot
 * load a class deletes nothing (client-compatibility left its node's 150 MB behind on every run that way).
 */
public final class ScratchDirectories {

  private static final List<Path> CREATED = new CopyOnWriteArrayList<>();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(() -> CREATED.forEach(ScratchDirectories::deleteAllButLogs),
        "scratch-cleanup"));
  }

  private ScratchDirectories() {}

  /** A new directory under the system's temporary directory, named {@code prefix} and a random suffix. */
  public static Path create(String prefix) throws IOException {
    Path directory = Files.createTempDirectory(prefix);
    CREATED.add(directory);
    return directory;
  }

  /** Deletes everything under {@code directory} except its top-level {@code *.log} files; best effort. */
  public static void deleteAllButLogs(Path directory) {
    if (!Files.isDirectory(directory)) {
      return;
    }
    try (Stream<Path> entries = Files.list(directory)) {
      entries.filter(entry -> !entry.getFileName().toString().endsWith(".log")).forEach(ScratchDirectories::deleteTree);
    } catch (IOException e) {
      System.err.println("could not clean " + directory + ": " + e.getMessage());
    }
  }

  /** Deletes {@code path} and everything under it; best effort. */
  public static void deleteTree(Path path) {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try {
      Files.walkFileTree(path, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
          Files.delete(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path directory, IOException failure) throws IOException {
          if (failure != null) {
            throw failure;
          }
          Files.delete(directory);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException e) {
      // a file still held by a process that is shutting down: left behind
      System.err.println("could not delete " + path + ": " + e.getMessage());
    }
  }
}
