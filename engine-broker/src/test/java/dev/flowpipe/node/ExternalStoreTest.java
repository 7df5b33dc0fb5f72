package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.schema.TestCertificates;
import dev.flowpipe.schema.TlsProxy;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** With a store URL the node starts no store of its own and writes to that one, with credentials if given. */
@ExtendWith(SharedOpenSearch.class)
class ExternalStoreTest {

  @TempDir Path data;

  @Test
  void writesToTheExternalStoreThroughBasicAuthAndStartsNoStore(EmbeddedSearchStore external, SearchStore direct)
      throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    try (StoreProxy secured = new StoreProxy(external.url(), "node", "pa55");
        TestNode node =
            new TestNode(data)
                .with("flowpipe.store.url", secured.url())
                .with("flowpipe.store.username", "node")
                .with("flowpipe.store.password", "pa55")
                .with("flowpipe.exporter.index-prefix", prefix)
                .start()) {

      assertThat(node.store().isEmbedded()).isFalse();
      assertThat(ProcessHandle.current().children()
              .filter(p -> p.info().commandLine().orElse("").contains("EmbeddedOpenSearchMain"))
              .filter(p -> p.pid() != external.pid())
              // this node's: other classes of this JVM start nodes with stores of their own beside it
              .filter(p -> p.info().commandLine().orElse("").contains(data.toString())))
          .as("no store process started by the node")
          .isEmpty();
      assertThat(Files.exists(data.resolve("opensearch"))).isFalse();

      assertAnInstanceCompletesInTheReadModel(node, direct, prefix);
    }
  }

  @Test
  void givenAnHttpsStoreSignedByAPrivateCaWhenTheTrustStoreIsConfiguredThenTheNodeWritesItsReadModelThere(
      EmbeddedSearchStore external, SearchStore direct) throws Exception {
    String prefix = SharedOpenSearch.uniquePrefix();
    try (TlsProxy https = new TlsProxy(external.url());
        TestNode node =
            new TestNode(data)
                .with("flowpipe.store.url", https.url("localhost"))
                .with("flowpipe.store.tls.trust-store", TestCertificates.get().caTrustStore().toString())
                .with("flowpipe.store.tls.trust-store-password", TestCertificates.TRUST_STORE_PASSWORD)
                .with("flowpipe.exporter.index-prefix", prefix)
                .start()) {

      // the exporter runs inside the broker from its own arguments: the document shows they carried the trust store
      assertAnInstanceCompletesInTheReadModel(node, direct, prefix);
    }
  }

  private static void assertAnInstanceCompletesInTheReadModel(TestNode node, SearchStore direct, String prefix) {
    long instanceKey;
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand()
          .addProcessModel(Bpmn.createExecutableProcess("external").startEvent().endEvent().done(), "external.bpmn")
          .send().join();
      instanceKey = client.newCreateInstanceCommand().bpmnProcessId("external").latestVersion().send().join()
          .getProcessInstanceKey();
    }
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(direct.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), String.valueOf(instanceKey)))
            .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "COMPLETED")));
  }
}
