package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.ReadModelFixture.doc;
import static org.assertj.core.api.Assertions.assertThat;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The CSV export of a filtered instance list ({@code GET /ui/export/process-instances.csv}) over a real store: 10,000
 * instances of one process read in cursor pages of 1,000, one instance whose process name holds a comma, quotes, a line
 * break and a leading {@code =}, and a cap of 10,000 rows that a list of 10,001 runs into.
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstanceCsvExportTest {

  private static final int MANY = 10_000;
  private static final long FIRST_KEY = 2_251_799_813_700_000L;
  private static final long ODD_KEY = 2_251_799_813_600_000L;
  private static final String ODD_NAME = "=HYPERLINK(\"http://evil.example\",\"a,b\")\nline 2";

  private TestWebapp app;
  private final Set<String> manyKeys = new HashSet<>();

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) {
    String prefix = SharedOpenSearch.uniquePrefix();
    new SchemaManager(store, prefix, "1s").ensureSchema();
    String instances = ReadModelIndex.PROCESS_INSTANCE.indexName(prefix);
    List<DocumentWrite> writes = new ArrayList<>();
    for (int i = 0; i < MANY; i++) {
      long key = FIRST_KEY + i;
      manyKeys.add(String.valueOf(key));
      writes.add(doc(instances, key, Map.of("bpmnProcessId", "export-many", "processDefinitionName", "Many",
          "version", 1, "processDefinitionKey", 7, "state", "ACTIVE", "incident", false,
          "startDate", ReadModelFixture.date(i % 24))));
    }
    writes.add(doc(instances, ODD_KEY, Map.of("bpmnProcessId", "export-odd", "processDefinitionName", ODD_NAME,
        "version", 2, "processDefinitionKey", 8, "state", "ACTIVE", "incident", true,
        "startDate", ReadModelFixture.date(1))));
    for (int start = 0; start < writes.size(); start += 5_000) {
      assertThat(store.bulk(writes.subList(start, Math.min(start + 5_000, writes.size())), false).failures())
          .isEmpty();
    }
    store.refresh(instances);
    app = TestWebapp.start(Map.of("flowpipe.store.index-prefix", prefix,
        "flowpipe.store.url", node.url(),
        "flowpipe.webapp.export.max-rows", MANY, "flowpipe.webapp.export.page-size", 1_000));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
  }

  private Answer export(String filterJson) {
    return app.get("/ui/export/process-instances.csv"
        + (filterJson == null ? "" : "?filter=" + URLEncoder.encode(filterJson, StandardCharsets.UTF_8)));
  }

  /** The CSV's lines; the header's and rows' ends are CRLF (a quoted field may hold a bare LF). */
  private static List<String> lines(Answer answer) {
    return List.of(answer.body().split("\r\n"));
  }

  @Nested
  class AFilteredListOfTenThousand {

    @Test
    void isWrittenWholeWithTheHeaderAndEachInstanceOnce() {
      Answer answer = export("{\"processDefinitionId\": \"export-many\"}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(answer.contentType()).startsWith("text/csv");
      assertThat(answer.header("Content-Disposition")).contains("attachment");
      List<String> lines = lines(answer);
      assertThat(lines.getFirst()).isEqualTo("processInstanceKey,processDefinitionId,processDefinitionName,"
          + "processDefinitionVersion,processDefinitionKey,state,hasIncident,startDate,endDate,"
          + "parentProcessInstanceKey,tenantId");
      List<String> keys = lines.subList(1, lines.size()).stream().map(line -> line.split(",")[0]).toList();
      assertThat(keys).hasSize(MANY).doesNotHaveDuplicates();
      assertThat(new HashSet<>(keys)).isEqualTo(manyKeys);
      assertThat(lines.get(1)).matches("\\d+,export-many,Many,1,7,ACTIVE,false,[^,]+,,,<default>");
      assertThat(answer.header("Flowpipe-Export-Total")).isEqualTo(String.valueOf(MANY));
    }
  }

  @Nested
  class AValueThatASpreadsheetWouldMisread {

    @Test
    void isQuotedWithItsQuotesDoubledAndItsFormulaNeutralised() {
      Answer answer = export("{\"processDefinitionId\": \"export-odd\"}");

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(lines(answer)).hasSize(2);
      assertThat(lines(answer).get(1)).startsWith(ODD_KEY
          + ",export-odd,\"'=HYPERLINK(\"\"http://evil.example\"\",\"\"a,b\"\")\nline 2\",2,8,ACTIVE,true,");
    }
  }

  @Nested
  class AListLongerThanTheCap {

    @Test
    void endsAtTheCapAndSaysHowManyMatched() {
      Answer answer = export(null);

      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(lines(answer)).hasSize(1 + MANY);
      assertThat(answer.header("Flowpipe-Export-Total")).isEqualTo(String.valueOf(MANY + 1));
      assertThat(answer.header("Flowpipe-Export-Rows")).isEqualTo(String.valueOf(MANY));
    }
  }

  @Nested
  class ABadFilter {

    @Test
    void isRefusedWithA400NamingItsPartBeforeAnyRow() {
      Answer notJson = export("{not json");
      Answer unknownField = export("{\"noSuchField\": 1}");

      assertThat(notJson.status()).isEqualTo(400);
      assertThat(notJson.contentType()).startsWith("application/problem+json");
      assertThat(notJson.json().path("part").asText()).isEqualTo("filter");
      assertThat(unknownField.status()).isEqualTo(400);
      assertThat(unknownField.json().path("part").asText()).startsWith("filter");
    }
  }
}
