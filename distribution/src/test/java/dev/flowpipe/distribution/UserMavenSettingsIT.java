package dev.flowpipe.distribution;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build keeps a user's own Maven settings: {@code ./mvnw} run by a user whose {@code ~/.m2/settings.xml} names a
 * company mirror of Maven Central fetches everything through that mirror. The mirror here is a file repository (this
 * build's local repository), the user a fresh home directory with an empty local repository.
 */
class UserMavenSettingsIT {

  private static final Path CHECKOUT = Path.of(System.getProperty("flowpipe.checkout"));
  private static final Path LOCAL_REPOSITORY = Path.of(System.getProperty("flowpipe.local-repository"));
  private static final Pattern DOWNLOAD = Pattern.compile("Downloading from ([\\w.-]+):");

  @TempDir Path home;

  @Test
  void aMirrorInTheUsersSettingsIsUsedForEveryDownload() throws Exception {
    Files.createDirectories(home.resolve(".m2"));
    Files.writeString(home.resolve(".m2/settings.xml"), """
        <settings>
          <mirrors>
            <mirror>
              <id>company-mirror</id>
              <mirrorOf>central</mirrorOf>
              <url>%s</url>
            </mirror>
          </mirrors>
        </settings>
        """.formatted(LOCAL_REPOSITORY.toUri()));

    String output = mvnw(List.of("-B", "-pl", "build-support/zeebe-distribution-jars", "validate"));

    Matcher download = DOWNLOAD.matcher(output);
    List<String> from = download.results().map(match -> match.group(1)).toList();
    assertThat(from).as("repositories downloaded from").isNotEmpty().containsOnly("company-mirror");
    assertThat(output).contains("BUILD SUCCESS");
  }

  /** Runs the checkout's ./mvnw as the user whose home is {@link #home}; its output. */
  private String mvnw(List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(CHECKOUT.resolve("mvnw").toString()));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).directory(CHECKOUT.toFile()).redirectErrorStream(true);
    builder.environment().put("MAVEN_OPTS", "-Duser.home=" + home);
    builder.environment().put("HOME", home.toString());
    Process maven = builder.start();
    String output = new String(maven.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(maven.waitFor(5, TimeUnit.MINUTES)).as("maven finished").isTrue();
    return output;
  }
}
