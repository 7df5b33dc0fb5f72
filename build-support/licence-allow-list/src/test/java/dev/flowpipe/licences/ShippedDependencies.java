package dev.flowpipe.licences;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A shipped module's resolved compile and runtime dependency set, as its own build listed it
 * ({@code target/shipped-dependencies.txt}, the parent's {@code shipped-dependencies} execution): one
 * {@code groupId:artifactId:type[:classifier]:version:scope} a line. Our own modules are left out (the check skips
 * {@code dev.flowpipe}, and they are not in the local repository); what they bring is in the list already.
 */
record ShippedDependencies(List<Artifact> artifacts) {

  record Artifact(String groupId, String artifactId, String type, String classifier, String version) {

    /** How the check's THIRD-PARTY.txt names it. */
    String coordinates() {
      return groupId + ":" + artifactId + ":" + version;
    }

    String asDependency() {
      return alone("<dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version><type>%s</type>%s"
          .formatted(groupId, artifactId, version, type,
              classifier == null ? "" : "<classifier>" + classifier + "</classifier>") + "</dependency>");
    }
  }

  static ShippedDependencies of(Path module) throws IOException {
    Path list = module.resolve("target/shipped-dependencies.txt");
    if (!Files.exists(list)) {
      throw new AssertionError(list + " is missing: build " + module.getFileName() + " first (this module depends on "
          + "it, so -am or the reactor does)");
    }
    List<Artifact> artifacts = Files.readAllLines(list).stream()
        .map(line -> line.replaceFirst(" -- .*$", "").trim())
        .filter(line -> line.matches("[^\\s:]+:[^\\s:]+:[^\\s:]+(:[^\\s:]+)?:[^\\s:]+:(compile|runtime)"))
        .map(ShippedDependencies::artifact)
        .filter(artifact -> !artifact.groupId().equals("dev.flowpipe"))
        .toList();
    if (artifacts.isEmpty()) {
      throw new AssertionError(list + " names no dependency: " + Files.readString(list));
    }
    return new ShippedDependencies(artifacts);
  }

  private static Artifact artifact(String line) {
    String[] parts = line.split(":");
    return parts.length == 6
        ? new Artifact(parts[0], parts[1], parts[2], parts[3], parts[4])
        : new Artifact(parts[0], parts[1], parts[2], null, parts[3]);
  }

  /** Each artifact as a direct dependency of its resolved version, with nothing of its own: exactly the set. */
  String asDependencies() {
    return artifacts.stream().map(Artifact::asDependency).collect(Collectors.joining("\n    "));
  }

  /** The coordinates the check must have read a licence for. */
  List<String> checked() {
    return artifacts.stream().map(Artifact::coordinates).toList();
  }

  /** A dependency element without its own dependencies. */
  static String alone(String dependency) {
    return dependency.replace("</dependency>",
        "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>");
  }
}
