package dev.flowpipe.licences;

import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.licences.FixtureBuild.Outcome;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parent's licence allow-list run over small projects ({@link FixtureBuild}, all in one offline Maven run): a
 * shipped module's real resolved dependency set (the list the module's own build wrote, {@link ShippedDependencies})
 * or a server's kind of stand-in, each with one dependency more or none. The oracle is the licence each dependency's
 * own POM declares, not anything the check computes.
 */
class LicenceAllowListTest {

  private static final Path CHECKOUT = Path.of(System.getProperty("flowpipe.checkout")).toAbsolutePath();
  private static final String STAND_IN = dependency("org.springframework.boot", "spring-boot-starter-web", null)
      + dependency("io.camunda", "zeebe-client-java", null);
  // alone: its own POM declares the licence, and its dependencies are not all in this build's repository
  private static final String IDENTITY_SDK =
      ShippedDependencies.alone(dependency("io.camunda", "identity-sdk", "${zeebe.version}"));
  private static final String BROKER = dependency("io.camunda", "zeebe-broker", "${zeebe.version}");

  private static Map<String, Outcome> outcomes;

  @BeforeAll
  static void buildTheFixtures(@TempDir Path root) throws Exception {
    var server = ShippedDependencies.of(CHECKOUT.resolve("server")).asDependencies();
    var exporter = ShippedDependencies.of(CHECKOUT.resolve("camunda-exporter")).asDependencies();
    outcomes = new FixtureBuild(CHECKOUT, root)
        .with("server", server)
        .with("camunda-exporter", exporter)
        .with("importer", ShippedDependencies.of(CHECKOUT.resolve("importer")).asDependencies())
        .with("server-with-identity-sdk", server + IDENTITY_SDK)
        .with("camunda-exporter-with-broker", exporter + ShippedDependencies.alone(BROKER))
        .with("stand-in", STAND_IN)
        .with("stand-in-with-broker", STAND_IN + BROKER)
        .build();
  }

  @Nested
  class WhatAModuleReallyShips {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"server", "camunda-exporter", "importer"})
    void passesTheCheckWithEveryArtifactOfItsResolvedSetChecked(String module) throws Exception {
      var shipped = ShippedDependencies.of(CHECKOUT.resolve(module));
      var outcome = outcomes.get(module);

      assertThat(outcome.passed()).as(outcome.output()).isTrue();
      String thirdParty = outcome.thirdParty();
      assertThat(shipped.checked()).as("the module ships libraries of others").isNotEmpty();
      assertThat(shipped.checked()).allSatisfy(coordinates -> assertThat(thirdParty).contains(coordinates));
    }

    @Test
    void theServersFailsWhenTheProprietaryIdentitySdkIsAddedNamingIt() {
      var outcome = outcomes.get("server-with-identity-sdk");

      assertThat(outcome.passed()).as(outcome.output()).isFalse();
      assertThat(outcome.output())
          .contains("There are some forbidden licenses used")
          .contains("License: 'Camunda proprietary license'")
          .contains("io.camunda:identity-sdk:8.6.0");
    }

    @Test
    void theExportersFailsWhenTheCamundaLicensedBrokerIsAddedNamingIt() {
      var outcome = outcomes.get("camunda-exporter-with-broker");

      assertThat(outcome.passed()).as(outcome.output()).isFalse();
      assertThat(outcome.output())
          .contains("There are some forbidden licenses used")
          .contains("License: 'Camunda License v1.0'")
          .contains("io.camunda:zeebe-broker:8.6.0");
    }
  }

  @Nested
  class AServersKindOfStandIn {

    @Test
    void ofOpenSourceLicencesPassesTheCheck() throws Exception {
      var outcome = outcomes.get("stand-in");

      assertThat(outcome.passed()).as(outcome.output()).isTrue();
      assertThat(outcome.thirdParty()).contains("(Apache-2.0) Zeebe Client Java").contains("spring-webmvc");
    }

    @Test
    void failsWhenTheCamundaLicensedBrokerIsAddedNamingItAndTheEngineItBrings() {
      var outcome = outcomes.get("stand-in-with-broker");

      assertThat(outcome.passed()).as(outcome.output()).isFalse();
      assertThat(outcome.output())
          .contains("License: 'Camunda License v1.0'")
          .contains("io.camunda:zeebe-broker:8.6.0")
          .contains("io.camunda:zeebe-workflow-engine:8.6.0");
    }
  }

  static String dependency(String groupId, String artifactId, String version) {
    return "<dependency><groupId>%s</groupId><artifactId>%s</artifactId>%s</dependency>".formatted(groupId,
        artifactId, version == null ? "" : "<version>" + version + "</version>");
  }
}
