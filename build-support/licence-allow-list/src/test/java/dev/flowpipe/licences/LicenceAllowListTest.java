package dev.flowpipe.licences;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds a small project that inherits the parent's licence allow-list, offline with this build's own Maven, and
 * reads the outcome as a developer would: the exit code and the names in the output. The oracle is the licence each
 * dependency's own POM declares, not anything the check computes.
 */
class LicenceAllowListTest {

  private static final Path CHECKOUT = Path.of(System.getProperty("flowpipe.checkout")).toAbsolutePath();

  @TempDir Path project;

  @Nested
  class AServersDependencySet {

    @Test
    void ofOpenSourceLicencesPassesTheCheck() throws Exception {
      var build = buildFixtureWith("");

      assertThat(build.exitCode()).as(build.output()).isZero();
      assertThat(Files.readString(project.resolve("target/generated-sources/license/THIRD-PARTY.txt")))
          .contains("(Apache-2.0) Zeebe Client Java")
          .contains("spring-webmvc");
    }
  }

  @Nested
  class TheBuildFails {

    @Test
    void whenTheProprietaryIdentitySdkIsAdded() throws Exception {
      // alone: its own POM declares the licence, and its dependencies are not all in this build's repository
      var build =
          buildFixtureWith(
              dependency("io.camunda", "identity-sdk", "${zeebe.version}")
                  .replace(
                      "</version>",
                      "</version><exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion>"
                          + "</exclusions>"));

      assertThat(build.exitCode()).as(build.output()).isNotZero();
      assertThat(build.output())
          .contains("There are some forbidden licenses used")
          .contains("License: 'Camunda proprietary license'")
          .contains("io.camunda:identity-sdk:8.6.0");
    }

    @Test
    void whenTheCamundaLicensedBrokerIsAdded() throws Exception {
      var build = buildFixtureWith(dependency("io.camunda", "zeebe-broker", "${zeebe.version}"));

      assertThat(build.exitCode()).as(build.output()).isNotZero();
      assertThat(build.output())
          .contains("License: 'Camunda License v1.0'")
          .contains("io.camunda:zeebe-broker:8.6.0")
          .contains("io.camunda:zeebe-workflow-engine:8.6.0");
    }
  }

  private static String dependency(String groupId, String artifactId, String version) {
    return "<dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>"
        .formatted(groupId, artifactId, version);
  }

  private Build buildFixtureWith(String addedDependency) throws IOException, InterruptedException {
    var template = LicenceAllowListTest.class.getResourceAsStream("/licence-fixture/pom.xml").readAllBytes();
    Files.writeString(
        project.resolve("pom.xml"),
        new String(template, StandardCharsets.UTF_8)
            // relative: Maven resolves relativePath against the project's folder, even an absolute one
            .replace("@PARENT_POM@", project.relativize(CHECKOUT.resolve("pom.xml")).toString())
            .replace("@ADDED_DEPENDENCY@", addedDependency));
    var log = project.resolve("build.log");
    var command =
        List.of(
            CHECKOUT.resolve("mvnw").toString(),
            "-B",
            "-o",
            "-Dmaven.repo.local=" + System.getProperty("flowpipe.local-repository"),
            "-f",
            project.resolve("pom.xml").toString(),
            "prepare-package");
    var process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(3, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("the fixture's build took over 3 minutes: " + Files.readString(log));
    }
    return new Build(process.exitValue(), Files.readString(log));
  }

  private record Build(int exitCode, String output) {}
}
