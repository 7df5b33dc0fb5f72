package dev.flowpipe.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A bad setting stops start-up at once, with a message naming the key and the value, and nothing is written. */
class BadConfigurationTest {

  @TempDir Path temp;

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "flowpipe.broker.partitions-count | -3",
        "flowpipe.broker.replication-factor | 0",
        "flowpipe.broker.node-id | 7",
        "flowpipe.gateway.port | 70000",
        "flowpipe.exporter.bulk.delay | soon",
        "flowpipe.exporter.bulk.delay | -5ms",
        "flowpipe.exporter.bulk.size | 0",
        "flowpipe.exporter.index-prefix | Bad Prefix",
        "flowpipe.store.connect-timeout | 5 parsecs",
        "flowpipe.store.schema-timeout | 0ms",
        "flowpipe.store.embedded.heap | lots",
        "flowpipe.store.embedded.niceness | 20",
        "flowpipe.store.embedded.niceness | -1",
        "flowpipe.store.embedded.jvm-options | -Xmx4g",
        "flowpipe.store.embedded.jvm-options | UseParallelGC",
        "flowpipe.store.embedded.disk.watermark-high | lots",
        "flowpipe.store.embedded.disk.watermark-flood-stage | 101%",
        "flowpipe.store.embedded.disk.watermark-low | 1gb",
        "flowpipe.store.embedded.disk.check-interval | 0ms",
        "flowpipe.store.embedded.restart.max-attempts | -1",
        "flowpipe.store.embedded.restart.backoff | soon",
        "flowpipe.store.embedded.restart.max-backoff | 10ms",
        "flowpipe.store.url | ftp://search:21",
        "flowpipe.store.tls.trust-store | /nowhere/trust.p12",
        "flowpipe.store.tls.trust-store-type | PEM",
        "flowpipe.broker.contact-points | just-a-host",
        "flowpipe.broker.advertised-internal-port | 99999",
        "flowpipe.exporter.bulk.memory-limit | 12 apples",
        "flowpipe.exporter.bulk.refresh | sometimes",
        "flowpipe.exporter.bulk.in-flight | 5",
        "flowpipe.exporter.variable-value-limit | 0",
        "flowpipe.flow-control.max-export-lag | 0ms",
        "flowpipe.flow-control.resolution | 5ms",
        "flowpipe.flow-control.min-write-rate | 0",
        "flowpipe.flow-control.write-limit | -1",
        "flowpipe.flow-control.mode | sometimes",
        "flowpipe.flow-control.window | 500ms",
        "flowpipe.flow-control.warm-up | -5ms",
        "flowpipe.importer.page-size | 0",
        "flowpipe.importer.visibility-grace | soon",
        "flowpipe.importer.source-url | ftp://raw:21",
        "flowpipe.importer.page-sise | 100",
      })
  void failsNamingTheKeyAndTheValueAndWritesNothing(String key, String value) {
    Path dataDirectory = temp.resolve("data");
    TestNode node = new TestNode(dataDirectory).with(key, value);

    Throwable failure = catchThrowable(node::start);

    assertThat(failure).isNotNull();
    String messages = allMessages(failure);
    assertThat(messages).contains(value.trim());
    assertThat(messages).containsAnyOf(key, relaxed(key));
    assertThat(Files.exists(dataDirectory)).as("data directory created despite bad configuration").isFalse();
  }

  @Test
  void anUnreachableStoreUrlFailsFastNamingTheUrlAndWritesNothing() {
    Path dataDirectory = temp.resolve("data");
    String url = "http://127.0.0.1:" + TestNode.freePort();
    TestNode node = new TestNode(dataDirectory).with("flowpipe.store.url", url);

    long start = System.nanoTime();
    Throwable failure = catchThrowable(node::start);
    long millis = (System.nanoTime() - start) / 1_000_000;

    assertThat(allMessages(failure)).contains("flowpipe.store.url=" + url).contains("unreachable");
    assertThat(millis).as("fails without waiting for a broker or a retry loop").isLessThan(20_000);
    assertThat(Files.exists(dataDirectory)).isFalse();
  }

  @Test
  void aClusterNodeWithAnEmbeddedStoreOfItsOwnRefusesToStartNamingTheKeys() {
    Path dataDirectory = temp.resolve("data");
    TestNode node = new TestNode(dataDirectory).with("flowpipe.broker.cluster-size", 3)
        .with("flowpipe.broker.replication-factor", 3);

    Throwable failure = catchThrowable(node::start);

    assertThat(allMessages(failure)).contains("flowpipe.broker.cluster-size is 3", "flowpipe.store.url",
        "flowpipe.store.embedded.serves-cluster=true");
    assertThat(Files.exists(dataDirectory)).isFalse();
  }

  @Test
  void anOldWebAppStoreKeyRefusesToStartNamingTheKeyToSetInstead() {
    Path dataDirectory = temp.resolve("data");
    TestNode node = new TestNode(dataDirectory).with("flowpipe.webapp.store.url", "http://search:9200");

    Throwable failure = catchThrowable(node::start);

    assertThat(allMessages(failure))
        .contains("flowpipe.webapp.store.url is no longer read: set flowpipe.store.url instead");
    assertThat(Files.exists(dataDirectory)).isFalse();
  }

  @Test
  void aStoreIndexPrefixOtherThanTheExportersRefusesToStartNamingBoth() {
    Path dataDirectory = temp.resolve("data");
    TestNode node = new TestNode(dataDirectory).with("flowpipe.exporter.index-prefix", "ours")
        .with("flowpipe.store.index-prefix", "theirs");

    Throwable failure = catchThrowable(node::start);

    assertThat(allMessages(failure)).contains("flowpipe.store.index-prefix is 'theirs'",
        "flowpipe.exporter.index-prefix, 'ours'");
    assertThat(Files.exists(dataDirectory)).isFalse();
  }

  /** Spring reports record components in camelCase inside some messages ("partitionsCount"). */
  private static String relaxed(String key) {
    String last = key.substring(key.lastIndexOf('.') + 1);
    StringBuilder camel = new StringBuilder();
    boolean upper = false;
    for (char c : last.toCharArray()) {
      if (c == '-') {
        upper = true;
      } else {
        camel.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return key.substring(0, key.lastIndexOf('.') + 1) + camel;
  }

  private static String allMessages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.add(String.valueOf(t.getMessage()));
    }
    return String.join("\n", messages);
  }
}
