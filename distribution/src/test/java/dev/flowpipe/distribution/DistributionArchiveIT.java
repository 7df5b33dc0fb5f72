package dev.flowpipe.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.testsupport.NodeProcess;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.SearchStoreConnector;
import dev.flowpipe.schema.store.StoreConnection;
import io.camunda.zeebe.client.ZeebeClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node as a user gets it: the archive the build packaged, unpacked into an empty directory (no checkout, no
 * Maven class path) and started with its one command, {@code bin/flowpipe}, on a given Java. It must come up ready,
 * say which version and commit it is, serve the end-to-end workload through its gateway into a correct read model,
 * and stop cleanly on SIGTERM.
 */
class DistributionArchiveIT {

  private static final Path ARCHIVE = Path.of(System.getProperty("flowpipe.distribution.archive"));
  private static final String VERSION = System.getProperty("flowpipe.version");
  private static final Path CHECKOUT = Path.of(System.getProperty("flowpipe.checkout"));

  @TempDir Path temp;

  private NodeProcess node;

  @AfterEach
  void stopLeftovers() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void theUnpackedArchiveStartsWithItsOneCommandServesTheWorkloadAndStopsOnSigterm() throws Exception {
    Path home = unpack(ARCHIVE, temp.resolve("install"));
    Path launcher = home.resolve("bin/flowpipe");
    assertThat(launcher).isExecutable();

    // the launcher finds the embedded store's jars itself: no class path setting is given
    node = NodeProcess.launch(List.of(launcher.toString()),
        Map.of("JAVA_HOME", System.getProperty("java.home"), "FLOWPIPE_JAVA_OPTS", "-Xmx768m"),
        temp.resolve("data"), Map.of());
    node.awaitReady("/actuator/health/readiness");

    JsonNode info = new ObjectMapper().readTree(node.get("/actuator/info").body());
    assertThat(info.at("/build/version").asText()).isEqualTo(VERSION);
    assertThat(info.at("/build/zeebe/version").asText()).isEqualTo("8.6.0");
    String head = git("rev-parse", "HEAD");
    if (head != null) {
      String commit = info.at("/git/commit/id").asText();
      assertThat(commit).hasSizeGreaterThanOrEqualTo(7);
      assertThat(head).startsWith(commit);
    } else {
      assertThat(info.has("git")).as("no commit claimed by a build outside git").isFalse();
    }

    EndToEndWorkload.Outcome outcome;
    try (ZeebeClient client = node.client()) {
      outcome = EndToEndWorkload.run(client);
    }
    try (SearchStore store = SearchStoreConnector.connect(StoreConnection.of(node.storeUrl()))) {
      EndToEndWorkload.assertReadModel(store, "flowpipe", outcome);
    }

    ProcessHandle store = node.embeddedStore();
    assertThat(node.terminate(Duration.ofSeconds(60))).as("the node exits within 60 s of SIGTERM").isTrue();
    assertThat(node.exitCode()).as("exit code after SIGTERM (128 + 15)").isEqualTo(143);
    assertThat(store.isAlive()).as("embedded OpenSearch stopped with the node").isFalse();
    assertThat(node.log()).contains("broker closed in").contains("embedded OpenSearch stopped");
  }

  /** Unpacks with the system's tar, as a user would. */
  private static Path unpack(Path archive, Path into) throws IOException, InterruptedException {
    Files.createDirectories(into);
    Process tar = new ProcessBuilder("tar", "xzf", archive.toString(), "-C", into.toString())
        .redirectErrorStream(true).start();
    String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(tar.waitFor()).as("tar: " + output).isZero();
    return into.resolve("flowpipe-" + VERSION);
  }

  /** The checkout's own answer (independent of the build's plugin), or null outside a git checkout. */
  private static String git(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("git", "-C", CHECKOUT.toString()));
    command.addAll(List.of(args));
    Process git = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String output = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return git.waitFor(10, TimeUnit.SECONDS) && git.exitValue() == 0 ? output : null;
  }
}
