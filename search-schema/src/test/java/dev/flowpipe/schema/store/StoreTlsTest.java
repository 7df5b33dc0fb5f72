package dev.flowpipe.schema.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.TestCertificates;
import dev.flowpipe.schema.TlsProxy;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An https store whose certificate a private CA signed, for {@code localhost} only (a TLS proxy in front of the shared
 * OpenSearch): trusted through the CA, refused without it or under another host name, and bad settings refused when
 * they are read. Both adapters over https: {@link SearchStoreContractTest}.
 */
@ExtendWith(SharedOpenSearch.class)
class StoreTlsTest {

  private static final String KEYS = "flowpipe.store.tls.";
  private final EmbeddedSearchStore node;
  private TlsProxy https;

  StoreTlsTest(EmbeddedSearchStore node) {
    this.node = node;
  }

  @BeforeEach
  void startTheProxy() {
    https = new TlsProxy(node.url());
  }

  @AfterEach
  void stopTheProxy() {
    https.close();
  }

  private static StoreTls trustStore(boolean verifyHostname) {
    return new StoreTls(KEYS, TestCertificates.get().caTrustStore(), TestCertificates.TRUST_STORE_PASSWORD, "PKCS12",
        null, verifyHostname);
  }

  private StoreConnection connection(String host, StoreTls tls) {
    return new StoreConnection(URI.create(https.url(host)), null, null, Duration.ofSeconds(5), Duration.ofSeconds(10),
        tls);
  }

  @Test
  void givenTheCaAsAPemFileWhenConnectingThenTheStoreAnswers() {
    StoreTls pem = new StoreTls(KEYS, null, null, null, TestCertificates.get().caPem(), true);

    try (SearchStore store = SearchStoreConnector.connect(connection("localhost", pem))) {
      assertThat(store.health()).isIn("green", "yellow");
    }
  }

  @Test
  void givenNoTrustStoreWhenConnectingThenItFailsAtOnceSayingWhichKeysToSet() {
    assertTimeoutPreemptively(Duration.ofSeconds(20), () ->
        assertThatThrownBy(() -> SearchStoreConnector.connect(connection("localhost", null)))
            .isInstanceOf(StoreUnavailableException.class)
            .hasMessageContaining(https.url("localhost"))
            .hasMessageContaining("TLS handshake")
            .hasMessageContaining("tls.trust-store"));
  }

  @Nested
  class GivenACertificateForAnotherHostName {

    @Test
    void whenVerificationIsOnThenTheConnectionIsRefused() {
      assertThatThrownBy(() -> SearchStoreConnector.connect(connection("127.0.0.1", trustStore(true))))
          .isInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("127.0.0.1");
    }

    @Test
    void whenVerificationIsOffThenBothTheProbeAndTheAdapterConnect() {
      try (SearchStore store = SearchStoreConnector.connect(connection("127.0.0.1", trustStore(false)))) {
        assertThat(store.health()).isIn("green", "yellow");
      }
    }

    @Test
    void whenOnlyTheAdapterIsAskedThenItRefusesToo() {
      try (SearchStore store = SearchStoreConnector.open(connection("127.0.0.1", trustStore(true)),
          new SearchStoreConnector.StoreIdentity(StoreProduct.OPENSEARCH, "3"))) {
        assertThatThrownBy(store::health).isInstanceOf(StoreUnavailableException.class);
      }
    }
  }

  @Nested
  class GivenBadSettings {

    @Test
    void whenThePasswordIsWrongThenTheyFailNamingTheKeyAndThePath() {
      Path file = TestCertificates.get().caTrustStore();

      assertThatThrownBy(() -> new StoreTls(KEYS, file, "wrong", "PKCS12", null, true))
          .hasMessageContaining(KEYS + "trust-store-password")
          .hasMessageContaining(file.toAbsolutePath().toString());
    }

    @Test
    void whenTheFileIsMissingThenTheyFailNamingTheKeyAndThePath() {
      assertThatThrownBy(() -> StoreTls.fromKeys("tls-", Map.of("tls-trust-store", "/nowhere/trust.p12")))
          .hasMessageContaining("tls-trust-store")
          .hasMessageContaining("/nowhere/trust.p12");
      assertThatThrownBy(() -> StoreTls.fromKeys("tls-", Map.of("tls-ca-certificate", "/nowhere/ca.pem")))
          .hasMessageContaining("tls-ca-certificate")
          .hasMessageContaining("/nowhere/ca.pem");
    }

    @Test
    void whenTheTypeOrTheSwitchIsUnknownThenTheyFailNamingTheKeyAndTheValue() {
      assertThatThrownBy(() -> StoreTls.fromKeys("tls-", Map.of("tls-trust-store-type", "PEM")))
          .hasMessageContaining("tls-trust-store-type must be PKCS12 or JKS, was 'PEM'");
      assertThatThrownBy(() -> StoreTls.fromKeys("tls-", Map.of("tls-verify-hostname", "perhaps")))
          .hasMessageContaining("tls-verify-hostname must be true or false, was 'perhaps'");
    }
  }
}
