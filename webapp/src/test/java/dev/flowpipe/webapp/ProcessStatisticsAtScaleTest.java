package dev.flowpipe.webapp;

import static dev.flowpipe.webapp.ReadModelFixture.doc;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.index.SchemaManager;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.StoreProxy;
import dev.flowpipe.webapp.TestWebapp.Answer;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * silently (Operate's #41058 in kind). Through a proxy that shows what the web app asked the store and what the store
 * sent back: a page of the dashboard reads one definition per process of the page, and the latest-version filter one
 * per process, however many versions a process has (Operate's #58282 in kind).
 */
@ExtendWith(SharedOpenSearch.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProcessStatisticsAtScaleTest {

  private static final int SMALL_PROCESSES = 10_000;
  private static final int BIG_VERSIONS = 10_001;
  /** Definitions with an incident of {@link #ERROR}: more than one store request's worth of keys (1,000). */
  private static final int ERROR_DEFINITIONS = 2_000;
  private static final String ERROR = "no retries left";
  private static final ObjectMapper JSON = new ObjectMapper();

  private TestWebapp app;
  private StoreProxy proxy;
  private String prefix;
  private JsonNode answer;

  @BeforeAll
  void start(SearchStore store, EmbeddedSearchStore node) throws Exception {
    prefix = SharedOpenSearch.uniquePrefix();
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
    writes.add(doc(instances, key++, active("big", 1)));
    long firstSmallInstance = key;
    for (int p = 0; p < SMALL_PROCESSES; p++) {
      // small p's one definition has key BIG_VERSIONS + 1 + p
      writes.add(doc(instances, key++, active(small(p), BIG_VERSIONS + 1 + p)));
    }
    // one error on the instance of each of the first ERROR_DEFINITIONS small processes, so in their definitions
    String incidents = ReadModelIndex.INCIDENT.indexName(prefix);
    for (int p = 0; p < ERROR_DEFINITIONS; p++) {
      writes.add(doc(incidents, key++, Map.of("processInstanceKey", firstSmallInstance + p,
          "processDefinitionKey", BIG_VERSIONS + 1 + p,
          "bpmnProcessId", small(p), "elementId", "task", "errorType", "JOB_NO_RETRIES", "errorMessage", ERROR,
          "errorMessageHash", ERROR.hashCode(), "state", "ACTIVE")));
    }
    writes = ReadModelFixture.withIncidentsOnInstances(store, prefix, writes);
    for (int start = 0; start < writes.size(); start += 5_000) {
      assertThat(store.bulk(writes.subList(start, Math.min(start + 5_000, writes.size())), false).failures())
          .isEmpty();
    }
    store.refresh(definitions);
    store.refresh(instances);
    store.refresh(incidents);
    // through a proxy that can show which definitions a request reads
    proxy = new StoreProxy(node.url(), null, null);
    app = TestWebapp.start(Map.of("flowpipe.store.url", proxy.url(), "flowpipe.store.index-prefix", prefix));
    Answer all = app.post("/v2/process-definitions/statistics/process-instances", "{\"page\": {\"limit\": 10000}}");
    assertThat(all.status()).as(all.body()).isEqualTo(200);
    answer = all.json();
  }

  private static String small(int p) {
    return String.format("small-%05d", p);
  }

  private static Map<String, Object> active(String process, long definition) {
    return Map.of("bpmnProcessId", process, "processDefinitionKey", definition, "state", "ACTIVE", "incident", false,
        "startDate", ReadModelFixture.date(1));
  }

  @AfterAll
  void stop() {
    if (app != null) {
      app.close();
    }
    if (proxy != null) {
      proxy.close();
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

  @Nested
  class APageOfTheDashboard {

    @Test
    void readsTheDefinitionsOfItsOwnProcessesOnly() {
      proxy.recordSearches(true);

      // the second page of 10 by id: small-00009 ... small-00018
      Answer page = app.post("/v2/process-definitions/statistics/process-instances",
          "{\"sort\": [{\"field\": \"processDefinitionId\"}], \"page\": {\"from\": 10, \"limit\": 10}}");
      List<String> searches = proxy.recordSearches(false).searches();

      assertThat(page.status()).as(page.body()).isEqualTo(200);
      List<String> ids = new ArrayList<>();
      page.json().path("items").forEach(item -> ids.add(item.path("processDefinitionId").asText()));
      assertThat(ids).containsExactly(small(9), small(10), small(11), small(12), small(13), small(14), small(15),
          small(16), small(17), small(18));
      page.json().path("items").forEach(item -> assertThat(item.path("latestProcessDefinitionName").asText())
          .isEqualTo("Small " + Integer.parseInt(item.path("processDefinitionId").asText().substring(6))));
      List<String> definitionReads = searches.stream()
          .filter(s -> s.startsWith("/" + ReadModelIndex.PROCESS_DEFINITION.indexName(prefix) + "/")).toList();
      assertThat(definitionReads).as("searches of the definitions among %s", searches).hasSize(1);
      List<String> named = new ArrayList<>();
      java.util.regex.Matcher ids10 = java.util.regex.Pattern.compile("small-\\d{5}").matcher(definitionReads.getFirst());
      while (ids10.find()) {
        named.add(ids10.group());
      }
      assertThat(named).as("process ids the definitions' search names").containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void readsOneDefinitionPerProcessOfItsPageHoweverManyVersionsItHas() throws Exception {
      proxy.recordSearches(true);

      // the first page of 10 by id: big (10,001 versions), small-00000 ... small-00008
      Answer page = app.post("/v2/process-definitions/statistics/process-instances",
          "{\"sort\": [{\"field\": \"processDefinitionId\"}], \"page\": {\"limit\": 10}}");
      proxy.recordSearches(false);

      assertThat(page.status()).as(page.body()).isEqualTo(200);
      List<String> items = new ArrayList<>();
      page.json().path("items").forEach(item -> items.add(item.path("processDefinitionId").asText() + " "
          + item.path("latestProcessDefinitionName").asText() + " " + item.path("hasMultipleVersions").asBoolean()));
      List<String> expected = new ArrayList<>(List.of("big Big v" + BIG_VERSIONS + " true"));
      for (int p = 0; p < 9; p++) {
        expected.add(small(p) + " Small " + p + " false");
      }
      assertThat(items).containsExactlyElementsOf(expected);
      // what the store sent back for the definitions: before, every one of big's 10,001 versions
      assertThat(documentsAnswered(ReadModelIndex.PROCESS_DEFINITION)).as("definitions the store answered")
          .isLessThanOrEqualTo(10);
    }
  }

  @Nested
  class TheDashboardInABrowser {

    /**
     * The UI reads the first 1,000 definitions (here all of big's versions) and the counts of 10,000 processes: before,
     * it showed only the processes of those definitions (big alone) and said nothing of the rest.
     */
    @Test
    void showsEveryCountedProcessAndSaysWhatItLeavesOut() {
      // the machine's Chromium, no browser download (the surefire setup of this module sets no Playwright variable)
      try (Playwright playwright = Playwright.create(new Playwright.CreateOptions()
              .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
          Browser browser = launchChromium(playwright)) {
        Page page = browser.newPage();

        page.navigate(app.baseUrl() + "/#/");
        Locator cut = page.locator("#dashboard-cut");
        cut.waitFor(new Locator.WaitForOptions().setTimeout(120_000));

        assertThat(cut.textContent()).isEqualTo("Processes with running instances: the first 10000 of "
            + (SMALL_PROCESSES + 1) + " by id. Processes without running instances: those of the first 1000 of "
            + (BIG_VERSIONS + SMALL_PROCESSES) + " definitions.");
        assertThat(page.locator("#dashboard-table tbody tr").count()).isEqualTo(10_000);
        assertThat(page.locator("#dashboard-table tr[data-process='big'] td").nth(2).textContent())
            .isEqualTo(String.valueOf(BIG_VERSIONS));
        Locator last = page.locator("#dashboard-table tr[data-process='" + small(SMALL_PROCESSES - 2) + "'] a").first();
        assertThat(last.textContent()).isEqualTo("Small " + (SMALL_PROCESSES - 2));
        assertThat(last.getAttribute("href"))
            .isEqualTo("#/instances?processDefinitionId=" + small(SMALL_PROCESSES - 2) + "&state=ACTIVE");
      }
    }
  }

  /** The machine's headless Chromium (Debian's package; no browser is downloaded); fails (no skip) without it. */
  private static Browser launchChromium(Playwright playwright) {
    Path chromium = Path.of("/usr/bin/chromium");
    assertThat(Files.isExecutable(chromium)).as(chromium + " (apt-get install chromium)").isTrue();
    return playwright.chromium().launch(new BrowserType.LaunchOptions().setExecutablePath(chromium).setHeadless(true)
        .setArgs(List.of("--no-sandbox", "--disable-gpu", "--disable-background-networking")));
  }

  @Nested
  class TheLatestVersionsFilter {

    @Test
    void findsTheLatestDefinitionOfEveryProcessReadingOnePerProcess() throws Exception {
      proxy.recordSearches(true);

      Answer latest = app.post("/v2/process-definitions/search",
          "{\"filter\": {\"isLatestVersion\": true, \"processDefinitionId\": \"big\"}}");
      Answer all = app.post("/v2/process-definitions/search",
          "{\"filter\": {\"isLatestVersion\": true}, \"page\": {\"limit\": 1}}");
      proxy.recordSearches(false);

      assertThat(latest.status()).as(latest.body()).isEqualTo(200);
      assertThat(latest.json().path("items")).singleElement()
          .satisfies(item -> assertThat(item.path("version").asInt()).isEqualTo(BIG_VERSIONS));
      assertThat(all.json().path("page").path("totalItems").asLong()).isEqualTo(SMALL_PROCESSES + 1);
      // two searches, each resolving the 10,001 latest versions: before, every definition (20,001) each time
      assertThat(documentsAnswered(ReadModelIndex.PROCESS_DEFINITION)).as("definitions the store answered")
          .isLessThanOrEqualTo(2 * (SMALL_PROCESSES + 1) + 2);
    }
  }

  @Nested
  class AnErrorInManyDefinitions {

    @Test
    void readsTheDefinitionsOfItsPageOnly() throws Exception {
      proxy.recordSearches(true);

      Answer page = app.post("/v2/incidents/statistics/process-instances-by-definition",
          "{\"filter\": {\"errorHashCode\": " + ERROR.hashCode() + "}, \"sort\": [{\"field\": "
              + "\"processDefinitionKey\"}], \"page\": {\"limit\": 10}}");
      proxy.recordSearches(false);

      assertThat(page.status()).as(page.body()).isEqualTo(200);
      assertThat(page.json().path("page").path("totalItems").asInt()).isEqualTo(ERROR_DEFINITIONS);
      List<String> items = new ArrayList<>();
      page.json().path("items").forEach(item -> items.add(item.path("processDefinitionKey").asText() + " "
          + item.path("processDefinitionName").asText() + " v" + item.path("processDefinitionVersion").asInt() + " "
          + item.path("activeInstancesWithErrorCount").asInt()));
      List<String> expected = new ArrayList<>();
      for (int p = 0; p < 10; p++) {
        expected.add((BIG_VERSIONS + 1 + p) + " Small " + p + " v1 1");
      }
      assertThat(items).containsExactlyElementsOf(expected);
      // before, the definitions of all 2,000, in two requests
      assertThat(documentsAnswered(ReadModelIndex.PROCESS_DEFINITION)).as("definitions the store answered")
          .isLessThanOrEqualTo(10);
    }
  }

  /** The documents in the store's answers to the recorded searches of this index: hits, and samples of groups. */
  private int documentsAnswered(ReadModelIndex index) throws Exception {
    int documents = 0;
    for (StoreProxy.AnsweredSearch search : proxy.answeredSearches()) {
      if (search.request().startsWith("/" + index.indexName(prefix) + "/")) {
        documents += JSON.readTree(search.answer()).findValues("_source").size();
      }
    }
    return documents;
  }
}
