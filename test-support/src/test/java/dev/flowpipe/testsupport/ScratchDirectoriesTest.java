package dev.flowpipe.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
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
}
