package dev.flowpipe.licences;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Small projects that inherit the parent's licence allow-list, one per dependency set, built together offline with
 * this build's own Maven in one run ({@code --fail-at-end}: one start of Maven and of the plugin for all, where a run
 * each cost 20-35 s on a loaded machine). Each fixture's outcome is read as a developer would read it: whether the
 * reactor summary says SUCCESS, and its own part of the output.
 */
final class FixtureBuild {

  private static final Pattern SECTION = Pattern.compile("\\[INFO\\] -+< dev\\.flowpipe:licence-fixture-([\\w-]+) >-+");

  /** One fixture's outcome: passed the check, its part of the output, its folder. */
  record Outcome(boolean passed, String output, Path folder) {

    String thirdParty() throws IOException {
      return Files.readString(folder.resolve("target/generated-sources/license/THIRD-PARTY.txt"));
    }
  }

  private final Path checkout;
  private final Path root;
  private final Map<String, String> fixtures = new LinkedHashMap<>();

  FixtureBuild(Path checkout, Path root) {
    this.checkout = checkout;
    this.root = root;
  }

  /** A fixture named {@code name} with these dependency elements. */
  FixtureBuild with(String name, String dependencies) {
    fixtures.put(name, dependencies);
    return this;
  }

  /** Builds every fixture; each one's outcome by its name. */
  Map<String, Outcome> build() throws IOException, InterruptedException {
    var template = new String(FixtureBuild.class.getResourceAsStream("/licence-fixture/pom.xml").readAllBytes(),
        StandardCharsets.UTF_8);
    List<String> modules = new ArrayList<>();
    for (var fixture : fixtures.entrySet()) {
      Path folder = Files.createDirectories(root.resolve(fixture.getKey()));
      Files.writeString(folder.resolve("pom.xml"), template
          // relative: Maven resolves relativePath against the project's folder, even an absolute one
          .replace("@PARENT_POM@", folder.relativize(checkout.resolve("pom.xml")).toString())
          .replace("@NAME@", fixture.getKey())
          .replace("@DEPENDENCIES@", fixture.getValue()));
      modules.add("<module>" + fixture.getKey() + "</module>");
    }
    Files.writeString(root.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>dev.flowpipe</groupId>
          <artifactId>licence-fixtures</artifactId>
          <version>0.1.0</version>
          <packaging>pom</packaging>
          <modules>%s</modules>
        </project>
        """.formatted(String.join("", modules)));
    var log = root.resolve("build.log");
    var process = new ProcessBuilder(List.of(checkout.resolve("mvnw").toString(), "-B", "-o", "--fail-at-end",
        "-Dmaven.repo.local=" + System.getProperty("flowpipe.local-repository"), "-f",
        root.resolve("pom.xml").toString(), "prepare-package"))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(5, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("the fixtures' build took over 5 minutes: " + Files.readString(log));
    }
    return outcomes(Files.readString(log));
  }

  private Map<String, Outcome> outcomes(String output) {
    Map<String, String> sections = new LinkedHashMap<>();
    Matcher header = SECTION.matcher(output);
    String name = null;
    int start = 0;
    while (header.find()) {
      if (name != null) {
        sections.put(name, output.substring(start, header.start()));
      }
      name = header.group(1);
      start = header.start();
    }
    if (name != null) {
      int summary = output.indexOf("[INFO] Reactor Summary", start);
      sections.put(name, output.substring(start, summary < 0 ? output.length() : summary));
    }
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    for (String fixture : fixtures.keySet()) {
      Matcher summary = Pattern.compile("licence-fixture-" + Pattern.quote(fixture) + " [ .]*(SUCCESS|FAILURE)")
          .matcher(output);
      if (!summary.find() || !sections.containsKey(fixture)) {
        throw new AssertionError("no outcome for the fixture " + fixture + " in the build's output:\n" + output);
      }
      String section = sections.get(fixture);
      // the goal's failure message is in the reactor's error summary, after every section
      Matcher failure = Pattern.compile("\\[ERROR\\] Failed to execute goal .* on project licence-fixture-"
          + Pattern.quote(fixture) + ":.*").matcher(output);
      outcomes.put(fixture, new Outcome(summary.group(1).equals("SUCCESS"),
          failure.find() ? section + "\n" + failure.group() : section, root.resolve(fixture)));
    }
    return outcomes;
  }
}
