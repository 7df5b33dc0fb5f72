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
 * The dashboard's active instances per process with more processes and definitions than one store answer holds
 * (10,000 of each): a process "big" with 10,001 versions, and 10,000 processes of one version each, every process with
 * one active instance. Before, the processes past the terms aggregation's 10,000 were not counted and the definitions
 * past the first 10,000 (by version, newest first) were not read, so the one-version processes lost their names,
 * silently (Operate's #41058 in kind).
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProcessStatisticsAtScaleTest {

  private static final int SMALL_PROCESSES = 10_000;
  private static final int BIG_VERSIONS = 10_001;

  private TestWebapp app;
  private JsonNode answer;

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String definitions = ReadModelIndex.PROCESS_DEFINITION.indexName(prefix);
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    long key = 1;
    for (int version = 1; version <= BIG_VERSIONS; version++) {
      writes.add(doc(definitions, key++, Map.of("bpmnProcessId", "big", "version", version, "name", "Big v" + version)));
    }
    for (int p = 0; p < SMALL_PROCESSES; p++) {
      writes.add(doc(definitions, key++, Map.of("bpmnProcessId", small(p), "version", 1, "name", "Small " + p)));
    }
    writes.add(doc(instances, key++, active("big")));
    for (int p = 0; p < SMALL_PROCESSES; p++) {
      writes.add(doc(instances, key++, active(small(p))));
    }
    for (int start = 0; start < writes.size(); start += 5_000) {
      assertThat(store.bulk(writes.subList(start, Math.min(start + 5_000, writes.size())), false).failures())
          .isEmpty();
    }
    store.refresh(definitions);
    store.refresh(instances);
    app = TestWebapp.start(Map.of("flowpipe.store.url", node.url(), "flowpipe.store.index-prefix", prefix));
    Answer all = app.post("/v2/process-definitions/statistics/process-instances", "{\"page\": {\"limit\": 10000}}");
    assertThat(all.status()).as(all.body()).isEqualTo(200);
    answer = all.json();
  }

  private static String small(int p) {
    return String.format("small-%05d", p);
  }

  private static Map<String, Object> active(String process) {
    return Map.of("bpmnProcessId", process, "state", "ACTIVE", "incident", false, "startDate",
        ReadModelFixture.date(1));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  @Nested
  class TheDashboard {

    @Test
    void countsEveryProcessWithActiveInstances() {
      assertThat(answer.path("page").path("totalItems").asLong()).isEqualTo(SMALL_PROCESSES + 1);
    }

    @Test
    void namesEveryProcessByItsLatestVersionAndKnowsWhichHaveSeveral() {
      Map<String, String> names = new HashMap<>();
      List<String> withSeveralVersions = new ArrayList<>();
      answer.path("items").forEach(item -> {
        names.put(item.path("processDefinitionId").asText(), item.path("latestProcessDefinitionName").asText(null));
        if (item.path("hasMultipleVersions").asBoolean()) {
          withSeveralVersions.add(item.path("processDefinitionId").asText());
        }
      });

      // the page holds 10,000 of the 10,001 processes (sorted by id: big, small-00000 ... small-09998)
      assertThat(names).hasSize(10_000).containsEntry("big", "Big v" + BIG_VERSIONS)
          .containsEntry("small-00000", "Small 0").containsEntry("small-09998", "Small 9998");
      assertThat(names.values()).doesNotContainNull();
      assertThat(withSeveralVersions).containsExactly("big");
    }
  }
}
