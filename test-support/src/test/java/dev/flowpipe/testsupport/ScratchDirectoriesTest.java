package dev.flowpipe.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScratchDirectoriesTest {

  @TempDir
  Path temp;

  private Path nodeWorkDirectory() throws Exception {
    Path work = Files.createDirectories(temp.resolve("bench-node"));
    Files.writeString(work.resolve("node.log"), "started");
    Files.createDirectories(work.resolve("data/store/nodes/0"));
    Files.writeString(work.resolve("data/store/nodes/0/segment"), "x".repeat(1000));
    Files.writeString(work.resolve("data/store.log"), "deep log");
    return work;
  }

  @Test
  void aRunsDirectoryIsEmptiedButForItsTopLevelLogs() throws Exception {
    Path work = nodeWorkDirectory();

    ScratchDirectories.deleteAllButLogs(work);

    try (Stream<Path> left = Files.walk(work)) {
      assertThat(left.map(p -> work.relativize(p).toString())).containsExactlyInAnyOrder("", "node.log");
    }
    assertThat(Files.readString(work.resolve("node.log"))).isEqualTo("started");
  }

  @Test
  void aNodesDataDirectoryGoesWhole() throws Exception {
    Path work = nodeWorkDirectory();

    ScratchDirectories.deleteTree(work.resolve("data"));

    assertThat(work.resolve("data")).doesNotExist();
    assertThat(work.resolve("node.log")).exists();
  }

  @Test
  void aDirectoryThatIsGoneAlreadyIsNoError() {
    ScratchDirectories.deleteTree(temp.resolve("never-created"));
    ScratchDirectories.deleteAllButLogs(temp.resolve("never-created"));

    assertThat(temp.resolve("never-created")).doesNotExist();
  }

  @Test
  void aLinkIsRemovedNotFollowed() throws Exception {
    Path outside = Files.writeString(temp.resolve("outside.txt"), "keep");
    Path work = nodeWorkDirectory();
    Files.createSymbolicLink(work.resolve("data/link"), outside);

    ScratchDirectories.deleteTree(work.resolve("data"));

    assertThat(work.resolve("data")).doesNotExist();
    assertThat(outside).hasContent("keep");
  }

  /**
   * The exit hook in a JVM whose class path holds this module's classes only, as client-compatibility's tests have
   * them: it once needed Spring's file utilities, failed to load them at exit and deleted nothing.
   */
  @Test
  void aJvmWithNoOtherLibraryDeletesItsDirectoriesWhenItExits() throws Exception {
    String classPath = Path.of(ScratchDirectories.class.getProtectionDomain().getCodeSource().getLocation().toURI())
        + java.io.File.pathSeparator
        + Path.of(ScratchDirectoryOwner.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Djava.io.tmpdir=" + temp, "-cp", classPath, ScratchDirectoryOwner.class.getName())
        .redirectErrorStream(true).start();
    assertThat(owner.waitFor(60, TimeUnit.SECONDS)).as("the owner JVM exits").isTrue();
    String output = new String(owner.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(owner.exitValue()).as(output).isZero();
    Path directory = Path.of(output.lines().findFirst().orElseThrow());

    assertThat(directory.startsWith(temp)).as(output).isTrue();
    try (Stream<Path> left = Files.walk(directory)) {
      assertThat(left.map(p -> directory.relativize(p).toString())).as(output)
          .containsExactlyInAnyOrder("", "node.log");
    }
  }
}
