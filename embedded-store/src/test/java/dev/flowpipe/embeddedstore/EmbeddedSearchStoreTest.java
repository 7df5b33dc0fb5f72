package dev.flowpipe.embeddedstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * How the store's child process is started. The store itself is exercised by the contract tests on the shared node;
 * these cases launch a child only for the few seconds they look at it, without waiting for it to be green.
 */
class EmbeddedSearchStoreTest {

  @TempDir Path data;

  @Test
  @EnabledOnOs(OS.LINUX) // reads each thread's niceness from /proc
  void aPositiveNicenessStartsEveryThreadOfTheChildThatMuchNicerThanTheNode() throws Exception {
    int own = niceness(Path.of("/proc/self/stat"));

    try (EmbeddedSearchStore store = EmbeddedSearchStore.launch(data, Settings.forTests().withNiceness(7))) {
      List<Integer> threads = threadNicenessOnceBooting(store.pid());

      assertThat(threads).containsOnly(Math.min(own + 7, EmbeddedSearchStore.MAX_NICENESS));
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void nicenessZeroRunsTheChildAtTheNodesOwnPriority() throws Exception {
    int own = niceness(Path.of("/proc/self/stat"));

    try (EmbeddedSearchStore store = EmbeddedSearchStore.launch(data, Settings.forTests())) {
      assertThat(threadNicenessOnceBooting(store.pid())).containsOnly(own);
    }
  }

  @Test
  void aNicenessOutsideZeroToNineteenIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> Settings.forTests().withNiceness(20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("niceness must be 0 to 19, was 20");
    assertThatThrownBy(() -> Settings.forTests().withNiceness(-1))
        .hasMessage("niceness must be 0 to 19, was -1");
  }

  @Test
  @EnabledOnOs(OS.LINUX) // reads the child's command line from /proc
  void furtherJvmOptionsReachTheChildAndOneChoosingACollectorReplacesG1() throws Exception {
    Settings settings = Settings.forTests().withJvmOptions(List.of("-XX:+UseSerialGC", "-Dflowpipe.test=jvm-options"));

    try (EmbeddedSearchStore store = EmbeddedSearchStore.launch(data, settings)) {
      threadNicenessOnceBooting(store.pid()); // two collectors would have stopped the JVM before its threads started

      assertThat(commandLine(store.pid()))
          .contains("-XX:+UseSerialGC", "-Dflowpipe.test=jvm-options")
          .doesNotContain("-XX:+UseG1GC");
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void withoutFurtherOptionsTheChildRunsG1() throws Exception {
    try (EmbeddedSearchStore store = EmbeddedSearchStore.launch(data, Settings.forTests())) {
      threadNicenessOnceBooting(store.pid());

      assertThat(commandLine(store.pid())).contains("-XX:+UseG1GC");
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void theDiskWatermarksReachTheChildAsTheStoresOwnSettings() throws Exception {
    Settings settings = Settings.forTests().withWatermarks(DiskWatermarks.parse("", "3gb", "2gb", "1gb"));

    try (EmbeddedSearchStore store = EmbeddedSearchStore.launch(data, settings)) {
      assertThat(commandLine(store.pid())).containsSubsequence(
          "--setting", "cluster.routing.allocation.disk.watermark.low=" + (3L << 30) + "b",
          "--setting", "cluster.routing.allocation.disk.watermark.high=" + (2L << 30) + "b",
          "--setting", "cluster.routing.allocation.disk.watermark.flood_stage=" + (1L << 30) + "b");
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX) // kill -9
  void aStoreThatDiesWithNoRestartsLeftIsGivenUpOnNamingTheExitAndWhy() throws Exception {
    Settings settings = Settings.forTests()
        .withRestart(new RestartPolicy(0, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(1)));
    try (EmbeddedSearchStore store = EmbeddedSearchStore.start(data, settings)) {
      assertThat(store.status().state()).isEqualTo(EmbeddedSearchStore.State.UP);
      long pid = store.pid();

      assertThat(new ProcessBuilder("kill", "-9", String.valueOf(pid)).start().waitFor()).isZero();

      await("the supervisor gives up on the killed child").atMost(Duration.ofSeconds(10))
          .until(() -> store.status().state() == EmbeddedSearchStore.State.GAVE_UP);
      EmbeddedSearchStore.Status status = store.status();
      assertThat(status.state()).isEqualTo(EmbeddedSearchStore.State.GAVE_UP);
      assertThat(status.lastExitCode()).isEqualTo(137);
      assertThat(status.restarts()).isZero();
      assertThat(status.reason()).contains("pid " + pid + ") exited with code 137")
          .contains("restarting is off (restart max-attempts 0)");
      assertThat(store.isAlive()).isFalse();
    }
  }

  @Test
  void aJvmOptionThatIsNotAnOptionOrBelongsToAnotherSettingIsRefusedNamingIt() {
    assertThatThrownBy(() -> Settings.forTests().withJvmOptions(List.of("-Xlog:gc", "UseSerialGC")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("jvm-options: each option must start with '-', was 'UseSerialGC'");
    assertThatThrownBy(() -> Settings.forTests().withJvmOptions(List.of("-Xmx4g")))
        .hasMessage("jvm-options: '-Xmx4g' is set by heap instead");
    assertThatThrownBy(() -> EmbeddedSearchStore.checkJvmOptions("flowpipe.store.embedded.", List.of("-cp", "x.jar")))
        .hasMessage("flowpipe.store.embedded.jvm-options: '-cp' is set by flowpipe.store.embedded.classpath instead");
  }

  @Test
  void withoutANiceProgramOnThePathAPositiveNicenessFailsNamingItAndThePath(@TempDir Path empty) {
    assertThatThrownBy(() -> EmbeddedSearchStore.niceCommand(7, empty.toString()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("niceness 7 needs the 'nice' program")
        .hasMessageContaining(empty.toString());
  }

  @Test
  @EnabledOnOs({OS.LINUX, OS.MAC}) // an executable file is enough for the lookup
  void theNiceProgramIsTheFirstExecutableNiceOnThePath(@TempDir Path first, @TempDir Path second) throws Exception {
    Path nice = Files.writeString(second.resolve("nice"), "#!/bin/sh\n");
    assertThat(nice.toFile().setExecutable(true)).isTrue();

    String path = first + java.io.File.pathSeparator + second;

    assertThat(EmbeddedSearchStore.niceCommand(7, path)).isEqualTo(nice.toString());
  }

  /** The niceness of each thread of {@code pid}, once the JVM has started more than its first few threads. */
  private static List<Integer> threadNicenessOnceBooting(long pid) {
    Path tasks = Path.of("/proc/" + pid + "/task");
    List<Path> threads = await("the child " + pid + " starts its threads").atMost(Duration.ofSeconds(30))
        .until(() -> list(tasks), started -> started.size() > 10);
    return threads.stream().map(thread -> niceness(thread.resolve("stat"))).filter(n -> n != null).toList();
  }

  /** The arguments the process was started with. */
  private static List<String> commandLine(long pid) throws IOException {
    return List.of(Files.readString(Path.of("/proc/" + pid + "/cmdline")).split("\0"));
  }

  private static List<Path> list(Path directory) throws IOException {
    try (Stream<Path> entries = Files.list(directory)) {
      return entries.toList();
    }
  }

  /** Field 19 of a /proc stat line; null if the thread ended meanwhile. */
  private static Integer niceness(Path stat) {
    try {
      String line = Files.readString(stat);
      String[] afterName = line.substring(line.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(afterName[16]);
    } catch (IOException e) {
      return null;
    }
  }
}
