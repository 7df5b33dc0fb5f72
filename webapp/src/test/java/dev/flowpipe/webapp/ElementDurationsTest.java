package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.ReadModelFixture.doc;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The heat map's numbers ({@code POST /v2/process-definitions/{key}/statistics/element-durations}) over a real store,
 * on a process with skewed durations: {@code quick}'s 20 instances took 0.1 s to 2 s, {@code slow}'s 10 s to 200 s. By
 * nearest rank, p50 is the 10th of 20 and p95 the 19th. An element instance that ended before the window, one of
 * another definition and one still active count for nothing.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ElementDurationsTest {

  private static final Instant WINDOW_START = Instant.parse("2026-06-01T00:00:00Z");
  private static final Instant WINDOW_END = WINDOW_START.plus(Duration.ofDays(1));

  private TestWebapp app;

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String elements = ReadModelIndex.FLOW_NODE_INSTANCE.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    long key = 1;
    Instant start = WINDOW_START.plus(Duration.ofHours(1));
    for (int i = 1; i <= 20; i++) {
      writes.add(doc(elements, key++, element(9, "quick", start, start.plusMillis(i * 100L))));
      writes.add(doc(elements, key++, element(9, "slow", start, start.plusSeconds(i * 10L))));
    }
    // out of the window: ended an hour before it, after far longer than any in it
    writes.add(doc(elements, key++, element(9, "quick", WINDOW_START.minus(Duration.ofDays(3)),
        WINDOW_START.minus(Duration.ofHours(1)))));
    // another definition's, in the window
    writes.add(doc(elements, key++, element(10, "quick", start, start.plus(Duration.ofHours(5)))));
    // still active
    Map<String, Object> active = new HashMap<>(element(9, "slow", start, null));
    active.put("state", "ACTIVE");
    writes.add(doc(elements, key, active));
    assertThat(store.bulk(writes, false).failures()).isEmpty();
    store.refresh(elements);
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
  }

  private static Map<String, Object> element(long definition, String elementId, Instant start, Instant end) {
    Map<String, Object> fields = new HashMap<>();
    fields.put("processInstanceKey", 500 + definition);
    fields.put("processDefinitionKey", definition);
    fields.put("bpmnProcessId", "skewed");
    fields.put("elementId", elementId);
    fields.put("type", "SERVICE_TASK");
    fields.put("state", "COMPLETED");
    fields.put("startDate", start.toString());
    if (end != null) {
      fields.put("endDate", end.toString());
    }
    return fields;
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  private Answer durations(String key, String body) {
    return app.post("/v2/process-definitions/" + key + "/statistics/element-durations", body);
  }

  @Nested
  class OverAWindow {

    @Test
    void givesEachElementsP50AndP95WithTheSlowElementFirst() {
      Answer answer = durations("9", "{\"from\": \"" + WINDOW_START + "\", \"to\": \"" + WINDOW_END + "\"}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      JsonNode items = answer.json().path("items");
      assertThat(items).hasSize(2);
      assertThat(items.get(0).path("elementId").asText()).isEqualTo("slow");
      assertThat(items.get(0).path("count").asInt()).isEqualTo(20);
      assertThat(items.get(0).path("p50Millis").asLong()).isEqualTo(100_000);
      assertThat(items.get(0).path("p95Millis").asLong()).isEqualTo(190_000);
      assertThat(items.get(1).path("elementId").asText()).isEqualTo("quick");
      assertThat(items.get(1).path("p50Millis").asLong()).isEqualTo(1_000);
      assertThat(items.get(1).path("p95Millis").asLong()).isEqualTo(1_900);
      assertThat(items.get(1).path("maxMillis").asLong()).isEqualTo(2_000);
      assertThat(answer.json().path("sampled").asBoolean()).isFalse();
    }

    @Test
    void thatHoldsNothingGivesNoItems() {
      Answer answer = durations("9", "{\"from\": \"2020-01-01T00:00:00Z\", \"to\": \"2020-01-02T00:00:00Z\"}");

      assertThat(answer.status()).isEqualTo(200);
      assertThat(answer.json().path("items")).isEmpty();
    }
  }

  @Nested
  class BadInput {

    @Test
    void isA400NamingThePart() {
      Answer date = durations("9", "{\"from\": \"yesterday\"}");
      Answer order = durations("9", "{\"from\": \"" + WINDOW_END + "\", \"to\": \"" + WINDOW_START + "\"}");
      Answer key = durations("not-a-key", "{}");
      Answer part = durations("9", "{\"window\": \"1h\"}");

      assertThat(List.of(date.status(), order.status(), key.status(), part.status())).containsOnly(400);
      assertThat(date.json().path("part").asText()).isEqualTo("from");
      assertThat(order.json().path("part").asText()).isEqualTo("from");
      assertThat(key.json().path("part").asText()).isEqualTo("processDefinitionKey");
      assertThat(part.json().path("part").asText()).isEqualTo("window");
    }
  }
}
