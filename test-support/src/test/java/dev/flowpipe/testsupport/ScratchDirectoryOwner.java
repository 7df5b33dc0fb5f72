package dev.flowpipe.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The main class of a JVM that {@link ScratchDirectoriesTest} starts with nothing but this module's classes on its
 * class path: it makes a scratch directory with a node's kind of content, prints its path and exits.
 */
public final class ScratchDirectoryOwner {

  private ScratchDirectoryOwner() {}

  public static void main(String[] args) throws Exception {
    Path directory = ScratchDirectories.create("scratch-owner");
    Files.writeString(directory.resolve("node.log"), "started");
    Files.createDirectories(directory.resolve("data/store/nodes/0"));
    Files.writeString(directory.resolve("data/store/nodes/0/segment"), "x".repeat(1000));
    System.out.println(directory);
  }
}
