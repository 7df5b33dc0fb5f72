package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.APIResponse;
import com.microsoft.playwright.Route;
import com.microsoft.playwright.assertions.LocatorAssertions;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The UI in the machine's headless Chromium (Debian's package at /usr/bin/chromium, driven by Playwright; no browser
 * is downloaded). A screenshot of each page goes to {@code target/screenshots/}.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebappInBrowserTest {

  static final Path SCREENSHOTS = Paths.get("target", "screenshots");

  private Runs runs;
  private Playwright playwright;
  private Browser browser;
  private Page page;

  @BeforeAll
  void launch(Runs runs) throws Exception {
    this.runs = runs;
    Files.createDirectories(SCREENSHOTS);
    playwright = Playwright.create();
    browser = HeadlessChromium.launch(playwright);
    // the runs' last effects are searchable before the pages are opened
    await().atMost(Duration.ofSeconds(30)).until(() ->
        Http.post(runs.baseUrl() + "/v2/incidents/search", "{\"filter\": {\"state\": \"ACTIVE\", \"processDefinitionId\": \"webapp-fragile\"}}")
            .json().path("page").path("totalItems").asLong() == 1);
  }

  @BeforeEach
  void openPage() {
    if (page == null) {
      page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
      page.setDefaultTimeout(20_000);
    }
  }

  @AfterAll
  void close() {
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
  }

  private void screenshot(String name) {
    screenshot(page, name);
  }

  @Test
  @Order(1)
  void theDashboardShowsRunningInstancesAndOpenIncidentsPerProcess() {
    page.navigate(runs.baseUrl() + "/#/");

    Locator order = page.locator("#dashboard-table tr[data-process='webapp-order']");
    Locator fragile = page.locator("#dashboard-table tr[data-process='webapp-fragile']");
    assertThat(order.locator("a.running")).hasText("2");
    assertThat(order.locator("a.incidents")).hasText("0");
    assertThat(fragile.locator("a.running")).hasText("1");
    assertThat(fragile.locator("a.incidents")).hasText("1");
    screenshot("dashboard");
  }

  @Test
  @Order(2)
  void theInstanceListFiltersByProcessAndIncident() {
    // every instance of the runs is listed in its process's list (the list pages by 20, and other test classes on the
    // shared node add instances of their own, so the unfiltered first page need not hold the runs' oldest)
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-order");
    for (long instance : runs.orderInstances().subList(0, 3)) {
      assertThat(page.locator("#instances-table tr[data-key='" + instance + "']")).hasCount(1);
    }
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile");
    assertThat(page.locator("#instances-table tr[data-key='" + runs.fragileInstance() + "']")).hasCount(1);

    page.fill("#filter-form input[name=processDefinitionId]", "webapp-fragile");
    page.selectOption("#filter-form select[name=hasIncident]", "true");
    page.click("#apply");

    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.fragileInstance()));
    assertThat(page.locator("#page-info")).hasText("1 instances");
    screenshot("instance-list");

    page.selectOption("#filter-form select[name=hasIncident]", "");
    page.fill("#filter-form input[name=processDefinitionId]", "webapp-order");
    page.selectOption("#filter-form select[name=state]", "COMPLETED");
    page.click("#apply");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.orderInstances().getFirst()));
  }

  /**
   * Operate's daily filters: a variable's name and value (its JSON text), an open incident's message, an element; each
   * in the URL, so a link opens the same list. Expected instances from what the runs sent the engine.
   */
  @Test
  @Order(2)
  void theInstanceListFiltersByAVariableAnErrorMessageAndAnElementAndTheUrlKeepsTheFilter() {
    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    page.navigate(runs.baseUrl() + "/#/instances");
    page.fill("#filter-form input[name=variableName]", "orderId");
    page.fill("#filter-form input[name=variableValue]", "\"o-2\"");
    page.click("#apply");

    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.orderInstances().get(1)));
    screenshot("instance-list-by-variable");
    String link = page.url();
    assertThat(link).contains("variableName=orderId");

    // the link opened anew shows the same list; a number is JSON text without quotes
    page.navigate(runs.baseUrl() + "/#/");
    page.navigate(link);
    assertThat(page.locator("#filter-form input[name=variableValue]")).hasValue("\"o-2\"");
    assertThat(rows).hasCount(1);
    page.navigate(runs.baseUrl() + "/#/instances?variableName=amount&variableValue=30");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.orderInstances().get(2)));

    page.navigate(runs.baseUrl() + "/#/instances?errorMessage=card%20decl*");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.fragileInstance()));
    // the runs' process: other classes on the shared node fail jobs at elements named "charge" too
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile&elementId=charge&hasRetriesLeft=false");
    assertThat(rows).hasCount(1);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.fragileInstance()));
    screenshot("instance-list-by-element");
  }

  @Test
  @Order(3)
  void anInstancePageShowsTheDiagramWithStatesTheVariablesAndTheIncident() {
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile");
    page.click("#instances-table a[href='#/instances/" + runs.fragileInstance() + "']");

    assertThat(page.locator("#instance-state")).hasText("ACTIVE");
    assertThat(page.locator("#diagram .djs-element[data-element-id='charge']")).hasClass(java.util.regex.Pattern.compile("element-incident"));
    assertThat(page.locator("#diagram .djs-element[data-element-id='begin']")).hasClass(java.util.regex.Pattern.compile("element-completed"));
    assertThat(page.locator("#diagram .badges[data-element='charge'] .badge-incident")).hasText("1");
    assertThat(page.locator("#variables-table tr[data-name='card']")).containsText("\"4111\"");
    assertThat(page.locator("#incidents-table")).containsText("card declined");
    assertThat(page.locator("#incidents-table")).containsText("JOB_NO_RETRIES");
    assertThat(page.locator("#element-tree li[data-element='charge']")).containsText("SERVICE_TASK");
    screenshot("instance-with-incident");
  }

  @Test
  @Order(4)
  void anActiveInstanceShowsItsActiveElement() {
    long waiting = runs.orderInstances().get(1);
    page.navigate(runs.baseUrl() + "/#/instances/" + waiting);

    assertThat(page.locator("#diagram .djs-element[data-element-id='ship']")).hasClass(java.util.regex.Pattern.compile("element-active"));
    assertThat(page.locator("#diagram .djs-element[data-element-id='prepare']")).hasClass(java.util.regex.Pattern.compile("element-completed"));
    assertThat(page.locator("#variables-table tr[data-name='prepared']")).containsText("true");
    screenshot("instance-active");
  }

  @Test
  @Order(5)
  void theProcessPageShowsTheDiagramWithCountsPerElement() {
    page.navigate(runs.baseUrl() + "/#/");
    page.click("#dashboard-table tr[data-process='webapp-order'] td a");

    assertThat(page.locator("#process-name")).hasText("Webapp order");
    assertThat(page.locator("#diagram .badges[data-element='ship'] .badge-active")).hasText("2");
    assertThat(page.locator("#diagram .badges[data-element='prepare'] .badge-completed")).hasText("3");
    screenshot("process");
  }

  @Test
  @Order(6)
  void listsRefreshByThemselves() {
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-fragile");
    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(1);

    try (var client = runs.node().client()) {
      client.newCreateInstanceCommand().bpmnProcessId("webapp-fragile").latestVersion().send().join();
    }

    assertThat(rows).hasCount(2, new com.microsoft.playwright.assertions.LocatorAssertions.HasCountOptions().setTimeout(15_000));
  }

  // --- operations from the UI (the shared node has them on, without authentication) ---

  /** A process of these tests alone, so the other tests' data stays as it was. */
  private static final BpmnModelInstance WAIT =
      Bpmn.createExecutableProcess("ui-ops-wait").name("UI operations wait").startEvent("start")
          .serviceTask("work", t -> t.zeebeJobType("ui-ops-work")).endEvent("end").done();

  private boolean deployed;

  private long startWaiting(Map<String, Object> variables) {
    try (ZeebeClient client = runs.node().client()) {
      if (!deployed) {
        client.newDeployResourceCommand().addProcessModel(WAIT, "ui-ops-wait.bpmn").send().join();
        deployed = true;
      }
      return client.newCreateInstanceCommand().bpmnProcessId("ui-ops-wait").latestVersion().variables(variables)
          .send().join().getProcessInstanceKey();
    }
  }

  /**
   * A page that reloads only when an operation asks it to (its refresh interval set to a minute): what it shows
   * within two seconds of an operation comes from the read right after the operation, which must wait for the
   * operation's effect (the answer's written position as the read's consistency) to show it.
   */
  private Page pageRefreshingOnlyAfterOperations() {
    Page slow = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
    slow.setDefaultTimeout(20_000);
    // no live stream either: it would reload the page on the operation's export, not the read after the operation
    slow.route("**/ui/live*", Route::abort);
    slow.route("**/ui/config", route -> {
      APIResponse real = route.fetch();
      route.fulfill(new Route.FulfillOptions().setResponse(real)
          .setBody(real.text().replaceAll("\"refreshIntervalMillis\":\\d+", "\"refreshIntervalMillis\":60000")));
    });
    return slow;
  }

  private static final LocatorAssertions.HasTextOptions WITHIN_2_S = new LocatorAssertions.HasTextOptions().setTimeout(2_000);

  private static void confirm(Page on, String expected) {
    assertThat(on.locator("#confirm-text")).containsText(expected);
    on.click("#confirm-ok");
  }

  @Test
  @Order(7)
  void cancellingAnInstanceFromItsPageShowsItCancelledWithinTwoSeconds() {
    long instance = startWaiting(Map.of());
    Page slow = pageRefreshingOnlyAfterOperations();
    try {
      awaitSearchable("process-instances", "{\"processInstanceKey\": \"" + instance + "\"}");
      slow.navigate(runs.baseUrl() + "/#/instances/" + instance);
      assertThat(slow.locator("#instance-state")).hasText("ACTIVE");

      slow.click("#cancel-instance");
      confirm(slow, "Cancel process instance " + instance);

      assertThat(slow.locator("#instance-state")).hasText(Pattern.compile("CANCELED|TERMINATED"), WITHIN_2_S);
      assertThat(slow.locator("#cancel-instance")).hasCount(0);
      screenshot(slow, "instance-cancelled");
    } finally {
      slow.context().close();
    }
  }

  @Test
  @Order(8)
  void retryingAnIncidentFromTheInstancePageResolvesItAndTheInstanceCanComplete() {
    long instance = startWaiting(Map.of());
    try (ZeebeClient client = runs.node().client()) {
      ActivatedJob job = activateOne(client, instance);
      client.newFailCommand(job).retries(0).errorMessage("printer on fire").send().join();
    }
    Page slow = pageRefreshingOnlyAfterOperations();
    try {
      awaitSearchable("incidents", "{\"processInstanceKey\": \"" + instance + "\", \"state\": \"ACTIVE\"}");
      slow.navigate(runs.baseUrl() + "/#/instances/" + instance);
      Locator retry = slow.locator("#incidents-table button.retry");
      assertThat(retry).hasCount(1);
      assertThat(slow.locator("#incidents-table")).containsText("printer on fire");
      screenshot(slow, "incident-before-retry");

      retry.click();

      assertThat(slow.locator("#incidents-table tbody tr").first()).containsText("RESOLVED",
          new LocatorAssertions.ContainsTextOptions().setTimeout(2_000));
      assertThat(retry).hasCount(0);
    } finally {
      slow.context().close();
    }
    // the job has a retry again: a worker completes it, and the instance page (refreshing as usual) shows the end
    try (ZeebeClient client = runs.node().client()) {
      client.newCompleteCommand(activateOne(client, instance)).send().join();
    }
    page.navigate(runs.baseUrl() + "/#/instances/" + instance);
    assertThat(page.locator("#instance-state")).hasText("COMPLETED");
    // the retry is in the instance's audit trail, though it named the incident, not the instance
    assertThat(page.locator("#audit-table tr[data-operation='RESOLVE']")).containsText("SUCCESS");
    screenshot("instance-completed-after-retry");
  }

  @Test
  @Order(9)
  void editingATruncatedVariableShowsItsFullValueAndThenTheNewValue() {
    String longText = "x".repeat(9_000); // beyond the exporter's 8191 characters: truncated in lists
    long instance = startWaiting(Map.of("note", longText, "count", 1));
    Page slow = pageRefreshingOnlyAfterOperations();
    try {
      awaitSearchable("variables", "{\"processInstanceKey\": \"" + instance + "\", \"name\": \"count\"}");
      slow.navigate(runs.baseUrl() + "/#/instances/" + instance);
      Locator note = slow.locator("#variables-table tr[data-name='note']");
      assertThat(note.locator("button.edit")).hasCount(1);
      assertThat(note.locator(".truncated")).hasCount(1);

      note.locator("button.edit").click();
      Locator value = slow.locator("#variable-form textarea[name=value]");
      assertThat(value).hasValue("\"" + longText + "\"");
      value.fill("{\"status\": \"checked\"}");
      slow.click("#variable-save");
      assertThat(slow.locator("#message")).hasText("variable note set");

      // 5 s, not 2: the export position does not move past the operation's last records (they change no document)
      // until another bulk, so the read waiting for the written position times out at its 2 s (see the report of
      // the ui branch); the value itself is written at once
      assertThat(note.locator(".value")).hasText("{\"status\":\"checked\"}", new LocatorAssertions.HasTextOptions().setTimeout(5_000));
      assertThat(note.locator(".truncated")).hasCount(0);
      screenshot(slow, "variable-edited");
    } finally {
      slow.context().close();
    }
    try (ZeebeClient client = runs.node().client()) {
      ActivatedJob job = activateOne(client, instance);
      assertThat(job.getVariablesAsMap()).containsEntry("note", Map.of("status", "checked"));
      client.newCompleteCommand(job).send().join();
    }
  }

  @Test
  @Order(10)
  void aBatchCancelOfTheInstancesTheFilterMatchesEndsCompletedOnItsPage() {
    List<Long> instances = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      instances.add(startWaiting(Map.of("batch", true)));
    }
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-ops-wait&state=ACTIVE");
    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    for (long instance : instances) {
      assertThat(page.locator("#instances-table tr[data-key='" + instance + "']")).hasCount(1);
    }
    int matching = rows.count();

    page.click("#cancel-matching");
    confirm(page, "Cancel " + matching + " active root instances");
    screenshot("batch-confirmed");

    page.waitForURL(Pattern.compile(".*#/batches/\\d+"));
    assertThat(page.locator("#batch-state")).hasText("COMPLETED");
    assertThat(page.locator("#batch-counts")).hasText(matching + " of " + matching + " done, 0 failed");
    for (long instance : instances) {
      assertThat(page.locator("#batch-items-table tr[data-key='" + instance + "']")).containsText("COMPLETED");
    }
    screenshot("batch-completed");

    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-ops-wait&state=ACTIVE");
    assertThat(page.locator("#page-info")).hasText("0 instances");
  }

  @Test
  @Order(11)
  void theProcessPageSendsOneRequestForItsCountsPerRefresh() {
    List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
    // a page without the live stream (refused): it polls every refresh interval, as before streams
    Page page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
    page.setDefaultTimeout(20_000);
    page.route("**/ui/live*", Route::abort);
    page.onRequest(request -> {
      if (request.url().contains("/v2/")) {
        requests.add(request.method() + " " + request.url().substring(request.url().indexOf("/v2/")));
      }
    });
    page.navigate(runs.baseUrl() + "/#/processes/" + orderDefinitionKey());
    assertThat(page.locator("#diagram .badges[data-element='ship'] .badge-active")).hasText("2");

    String statistics = "POST /v2/process-definitions/" + orderDefinitionKey() + "/statistics/element-instances";
    // Playwright delivers the page's events while it is called: wait through it, not beside it
    page.waitForCondition(() -> requests.stream().filter(statistics::equals).count() >= 4,
        new Page.WaitForConditionOptions().setTimeout(15_000));
    List<String> seen = List.copyOf(requests);
    List<Integer> refreshes = new ArrayList<>();
    for (int i = 0; i < seen.size(); i++) {
      if (seen.get(i).equals(statistics)) {
        refreshes.add(i);
      }
    }
    // between two statistics requests lies exactly one other request: the count of running instances
    for (int r = 1; r < refreshes.size(); r++) {
      assertThat(seen.subList(refreshes.get(r - 1) + 1, refreshes.get(r)))
          .as("requests between two refreshes' statistics: %s", seen)
          .containsExactly("POST /v2/process-instances/search");
    }
    assertThat(seen).noneMatch(request -> request.contains("/element-instances/search"));
    page.context().close();
  }

  @Test
  @Order(12)
  void cancellingTheSelectedInstancesFromTheListCancelsThemAndNoOther() {
    long selected = startWaiting(Map.of("pick", "yes"));
    long other = startWaiting(Map.of("pick", "no"));
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-ops-wait&state=ACTIVE");
    assertThat(page.locator("#instances-table tr[data-key='" + other + "']")).hasCount(1);
    assertThat(page.locator("#instances-table tr[data-key='" + selected + "']")).hasCount(1);

    page.check("#instances-table tr[data-key='" + selected + "'] input.select");
    page.click("#cancel-selected");
    confirm(page, "Cancel 1 active root instances (the selected)");
    screenshot("batch-selected-confirmed");

    page.waitForURL(Pattern.compile(".*#/batches/\\d+"));
    assertThat(page.locator("#batch-state")).hasText("COMPLETED");
    assertThat(page.locator("#batch-counts")).hasText("1 of 1 done, 0 failed");
    assertThat(page.locator("#batch-items-table tr[data-key='" + selected + "']")).containsText("COMPLETED");
    page.navigate(runs.baseUrl() + "/#/instances/" + other);
    assertThat(page.locator("#instance-state")).hasText("ACTIVE");
    page.navigate(runs.baseUrl() + "/#/instances/" + selected);
    assertThat(page.locator("#instance-state")).hasText(Pattern.compile("CANCELED|TERMINATED"));
  }

  @Test
  @Order(13)
  void aSuspendedBatchIsShownWithResumeAndCancelAndCancellingItEndsItsOpenItemsCanceled() {
    int count = 100;
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess("ui-batch-wait").startEvent()
          .serviceTask("wait", t -> t.zeebeJobType("ui-batch-nobody")).endEvent().done(), "ui-batch-wait.bpmn")
          .send().join();
      for (int i = 0; i < count; i++) {
        client.newCreateInstanceCommand().bpmnProcessId("ui-batch-wait").latestVersion().send().join();
      }
    }
    await().atMost(Duration.ofSeconds(60)).until(() -> Http.post(runs.baseUrl() + "/v2/process-instances/search",
        "{\"filter\": {\"processDefinitionId\": \"ui-batch-wait\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\":"
            + " 0}}").json().path("page").path("totalItems").asLong() == count);
    // started and suspended through the API at once: the batch holds most of its items when the page opens
    String key = Http.post(runs.baseUrl() + "/v2/process-instances/cancellation",
        "{\"filter\": {\"processDefinitionId\": \"ui-batch-wait\"}}").json().path("batchOperationKey").asText();
    Http.post(runs.baseUrl() + "/v2/batch-operations/" + key + "/suspension", "{}");

    page.navigate(runs.baseUrl() + "/#/batches/" + key);
    assertThat(page.locator("#batch-state")).hasText("SUSPENDED");
    assertThat(page.locator("#batch-resume")).isVisible();
    assertThat(page.locator("#batch-cancel")).isVisible();
    assertThat(page.locator("#batch-suspend")).isHidden();
    screenshot("batch-suspended");

    page.click("#batch-cancel");
    confirm(page, "Cancel this batch?");
    assertThat(page.locator("#batch-state")).hasText("CANCELED");
    assertThat(page.locator("#batch-items-table td", new Page.LocatorOptions().setHasText("CANCELED")).first())
        .isVisible();
    assertThat(page.locator("#batch-resume")).isHidden();
    screenshot("batch-cancelled");

    page.navigate(runs.baseUrl() + "/#/batches");
    assertThat(page.locator("#batches-table tr[data-key='" + key + "']")).containsText("CANCELED");
    screenshot("batches");
  }

  /** Waits until a search finds what the engine did, so a page opened next shows it on its first read. */
  private void awaitSearchable(String entity, String filter) {
    await().atMost(Duration.ofSeconds(10)).until(() ->
        Http.post(runs.baseUrl() + "/v2/" + entity + "/search", "{\"filter\": " + filter + ", \"page\": {\"limit\": 0}}")
            .json().path("page").path("totalItems").asLong() > 0);
  }

  private String orderDefinitionKey() {
    return Http.post(runs.baseUrl() + "/v2/process-definitions/search", "{\"filter\": {\"processDefinitionId\": \"webapp-order\"}}")
        .json().path("items").get(0).path("processDefinitionKey").asText();
  }

  private static ActivatedJob activateOne(ZeebeClient client, long instance) {
    return SharedWebappNode.activateFor(client, "ui-ops-work", instance);
  }

  // --- live updates: pushed over one stream, no polling (ADR 0020) ---

  private static final BpmnModelInstance LIVE =
      Bpmn.createExecutableProcess("ui-live").name("UI live").startEvent("start")
          .serviceTask("wait", t -> t.zeebeJobType("ui-live-wait")).endEvent("end").done();

  private long startLive(ZeebeClient client) {
    return client.newCreateInstanceCommand().bpmnProcessId("ui-live").latestVersion().send().join()
        .getProcessInstanceKey();
  }

  /**
   * An open list sends no request while nothing changes (counted over an idle 5 s, in which the old polling sent five;
   * the stream aside: the stream's own client beside the browser saw no event in that window), shows a new instance pushed to it, and after its
   * connection drops (a proxy cuts it) catches up with what happened meanwhile on its own, without reloading the page.
   */
  @Test
  @Order(14)
  void anOpenListSendsNoRequestWhileNothingChangesShowsAPushedChangeAndCatchesUpAfterADrop() throws Exception {
    try (ZeebeClient client = runs.node().client();
        CuttableProxy proxy = new CuttableProxy(Integer.parseInt(runs.baseUrl().replaceAll(".*:", "")));
        LiveStreamClient stream = new LiveStreamClient(runs.baseUrl())) {
      client.newDeployResourceCommand().addProcessModel(LIVE, "ui-live.bpmn").send().join();
      Page live = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)).newPage();
      live.setDefaultTimeout(20_000);
      List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
      live.onRequest(request -> requests.add(request.method() + " " + request.url()));
      live.navigate(proxy.baseUrl() + "/#/instances?processDefinitionId=ui-live");
      assertThat(live.locator("body")).hasAttribute("data-live", "live");
      Locator rows = live.locator("#instances-table tbody tr[data-key]");
      assertThat(live.locator("#instances-table")).isVisible();
      live.evaluate("window.loadedOnce = true");
      // the reload timer set before the stream opened (the page polls until then) runs out once more
      live.waitForTimeout(2_000);

      // idle: a 5 s window in which the push client saw no event (the shared node may still move: a job timing out)
      List<String> idle = new ArrayList<>();
      await().atMost(Duration.ofSeconds(90)).pollInSameThread().pollInterval(Duration.ofMillis(200)).until(() -> {
        int eventsBefore = stream.events().size();
        int requestsBefore = requests.size();
        live.waitForTimeout(5_000);
        if (stream.events().size() != eventsBefore) {
          return false;
        }
        idle.addAll(requests.subList(requestsBefore, requests.size()));
        return true;
      });
      assertThat(idle).as("requests of an idle open page over 5 s").isEmpty();

      // a change appears, pushed: the page had no timer running
      int before = requests.size();
      long started = System.nanoTime();
      long first = startLive(client);
      assertThat(live.locator("#instances-table tr[data-key='" + first + "']")).hasCount(1);
      long shownMillis = (System.nanoTime() - started) / 1_000_000;
      assertThat(requests.subList(before, requests.size())).as("the reload after the push")
          .allMatch(r -> r.contains("/v2/") || r.contains("/actuator/health"));
      screenshot(live, "live-list");

      // the connection drops; meanwhile another instance starts; the page reconnects and shows it
      proxy.cut();
      assertThat(live.locator("body")).hasAttribute("data-live", "reconnecting");
      long second = startLive(client);
      long secondStarted = System.nanoTime();
      // the read model holds it and the stream told its clients (the push client is not behind the proxy)
      await().atMost(Duration.ofSeconds(20)).until(() -> stream.events().stream()
          .anyMatch(e -> e.arrivedNanos() > secondStarted) && Http.post(runs.baseUrl() + "/v2/process-instances/search",
              "{\"filter\": {\"processInstanceKey\": \"" + second + "\"}}").json().path("page").path("totalItems")
              .asLong() == 1);
      int beforeRestore = requests.size();
      assertThat(live.locator("#instances-table tr[data-key='" + second + "']")).hasCount(0);
      proxy.restore();
      assertThat(live.locator("#instances-table tr[data-key='" + second + "']")).hasCount(1);
      assertThat(rows).hasCount(2);
      assertThat(live.evaluate("window.loadedOnce === true")).as("the page was not loaded again").isEqualTo(true);
      assertThat(requests.subList(beforeRestore, requests.size())).as("the stream resumed, then the list reloaded once")
          .first().matches(r -> r.contains("/ui/live"));
      assertThat(live.locator("body")).hasAttribute("data-live", "live");
      System.out.printf("live: instance shown %d ms after its creation was sent%n", shownMillis);
      live.context().close();
    }
  }

  /** The list's "Export CSV" downloads what its filter matches: as many rows as the list counts, the runs' among them. */
  @Test
  @Order(15)
  void theListExportsWhatItsFilterMatchesAsCsv() throws Exception {
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=webapp-order");
    assertThat(page.locator("#page-info")).hasText(Pattern.compile("\\d+ instances"));
    int listed = Integer.parseInt(page.locator("#page-info").textContent().replace(" instances", ""));

    com.microsoft.playwright.Download download = page.waitForDownload(() -> page.click("#export-csv"));

    List<String> lines = Files.readAllLines(download.path());
    assertThat(download.suggestedFilename()).isEqualTo("process-instances.csv");
    assertThat(lines.getFirst()).startsWith("processInstanceKey,processDefinitionId,");
    assertThat(lines.subList(1, lines.size())).hasSize(listed)
        .extracting(line -> Long.valueOf(line.split(",")[0])).containsAll(runs.orderInstances())
        .doesNotHaveDuplicates();
    screenshot("instance-list-export");
  }

  /**
   * The stuck list: active instances with no record for a chosen time. The runs' two order instances waiting at
   * {@code ship} have had none since the node's set-up (more than 20 s before this test), the completed one is not
   * active; an instance started now has had progress within the hour. "Last updated" sorts both ways.
   */
  @Test
  @Order(16)
  void theStuckListShowsActiveInstancesWithoutProgressOldestFirstAndSortsByLastUpdated() {
    long fresh;
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(LIVE, "ui-live.bpmn").send().join();
      fresh = startLive(client);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(runs.baseUrl() + "/v2/process-instances/search",
        "{\"filter\": {\"processInstanceKey\": \"" + fresh + "\"}}").json().path("items").path(0)
        .path("lastUpdateDate").isTextual());

    page.navigate(runs.baseUrl() + "/#/stuck?for=20s&processDefinitionId=webapp-order");
    Locator rows = page.locator("#stuck-table tbody tr[data-key]");
    for (long waiting : runs.orderInstances().subList(1, 3)) {
      assertThat(page.locator("#stuck-table tr[data-key='" + waiting + "']")).hasCount(1);
    }
    assertThat(page.locator("#stuck-table tr[data-key='" + runs.orderInstances().getFirst() + "']")).hasCount(0);
    assertSortedByLastUpdate(rows, true);
    screenshot("stuck");

    page.click("#stuck-table a.sort[data-sort='lastUpdateDate']");
    assertThat(page.locator("#stuck-table a.sort[data-sort='lastUpdateDate']")).containsText("▼");
    assertSortedByLastUpdate(rows, false);

    page.navigate(runs.baseUrl() + "/#/stuck?for=1h&processDefinitionId=ui-live");
    assertThat(page.locator("#stuck-count")).hasText(Pattern.compile("^\\d+ instance"));
    assertThat(page.locator("#stuck-table tr[data-key='" + fresh + "']")).hasCount(0);
  }

  private static void assertSortedByLastUpdate(Locator rows, boolean ascending) {
    List<String> updates = rows.locator("[data-field='lastUpdateDate']").all().stream()
        .map(cell -> cell.getAttribute("data-value")).toList();
    assertThat(updates).isNotEmpty().doesNotContainNull();
    List<java.time.Instant> times = updates.stream().map(java.time.Instant::parse).toList();
    List<java.time.Instant> sorted = new ArrayList<>(times);
    sorted.sort(ascending ? java.util.Comparator.naturalOrder() : java.util.Comparator.reverseOrder());
    assertThat(times).isEqualTo(sorted);
  }

  private static final BpmnModelInstance SKEWED =
      Bpmn.createExecutableProcess("ui-skewed").name("UI skewed").startEvent("begin")
          .serviceTask("quick", t -> t.zeebeJobType("ui-quick"))
          .serviceTask("slow", t -> t.zeebeJobType("ui-slow")).endEvent("done").done();

  /**
   * The duration heat map on a process whose {@code slow} task takes far longer than its {@code quick} one (its jobs
   * completed three seconds after they were activated, the quick ones at once): {@code slow} is the hot element, and its
   * p95 is above quick's.
   */
  @Test
  @Order(17)
  void theHeatMapMarksTheSlowElementHot() {
    long definition;
    try (ZeebeClient client = runs.node().client()) {
      definition = client.newDeployResourceCommand().addProcessModel(SKEWED, "ui-skewed.bpmn").send().join()
          .getProcesses().getFirst().getProcessDefinitionKey();
      for (int i = 0; i < 3; i++) {
        client.newCreateInstanceCommand().bpmnProcessId("ui-skewed").latestVersion().send().join();
      }
      for (ActivatedJob job : SharedWebappNode.activate(client, "ui-quick", 3)) {
        client.newCompleteCommand(job).send().join();
      }
      List<ActivatedJob> slow = SharedWebappNode.activate(client, "ui-slow", 3);
      page.waitForTimeout(3_000); // the slow task's time: real, as the heat map reads it from the records' timestamps
      for (ActivatedJob job : slow) {
        client.newCompleteCommand(job).send().join();
      }
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(runs.baseUrl() + "/v2/process-instances/search",
        "{\"filter\": {\"processDefinitionId\": \"ui-skewed\", \"state\": \"COMPLETED\"}}").json()
        .path("page").path("totalItems").asLong() == 3);

    page.navigate(runs.baseUrl() + "/#/processes/" + definition + "?heat=1h");

    Locator hot = page.locator("#diagram .heat.hot");
    assertThat(hot).hasCount(1);
    assertThat(hot).hasAttribute("data-element", "slow");
    long slowP95 = Long.parseLong(hot.getAttribute("data-p95"));
    long quickP95 = Long.parseLong(page.locator("#diagram .heat[data-element='quick']").getAttribute("data-p95"));
    assertThat(slowP95).isGreaterThanOrEqualTo(3_000).isGreaterThan(quickP95);
    screenshot("heat-map");
  }

  /**
   * The dashboard's open incidents by error link to the list of that error's active instances (the runs' fragile
   * instance, whose job failed with "card declined"); on the process page, clicking an element opens the list of the
   * instances that have an instance of it.
   */
  @Test
  @Order(18)
  void theDashboardsErrorsAndTheDiagramsElementsLinkIntoFilteredLists() {
    page.navigate(runs.baseUrl() + "/#/");
    Locator declined = page.locator("#incidents-by-error a.error-link", new Page.LocatorOptions().setHasText("card declined"));
    assertThat(declined).hasCount(1);
    screenshot("dashboard-incidents-by-error");
    declined.click();
    assertThat(page.locator("#instances-table tr[data-key='" + runs.fragileInstance() + "']")).hasCount(1);
    assertThat(page.locator("#filter-form input[name=errorMessage]")).hasValue("card declined");

    page.navigate(runs.baseUrl() + "/#/processes/" + orderDefinitionKey());
    assertThat(page.locator("#diagram .badges[data-element='ship']")).isVisible();
    page.locator("#diagram g[data-element-id='ship']").first().click();
    assertThat(page.locator("#filter-form input[name=elementId]")).hasValue("ship");
    for (long order : runs.orderInstances()) {
      assertThat(page.locator("#instances-table tr[data-key='" + order + "']")).hasCount(1);
    }
    screenshot("instance-list-by-clicked-element");
  }

  // --- the views Operate users know: the list's diagram, the element tree, the dashboard, the keyboard (issue 36) ---

  private static final BpmnModelInstance TREE_CHILD =
      Bpmn.createExecutableProcess("ui-tree-child").name("UI tree child").startEvent("child-start")
          .serviceTask("pack", t -> t.zeebeJobType("ui-tree-pack")).endEvent("child-end").done();

  /** A sub-process with a variable of its own scope, then a call activity. */
  private static final BpmnModelInstance TREE =
      Bpmn.createExecutableProcess("ui-tree").name("UI tree").startEvent("start")
          .subProcess("review").zeebeInputExpression("\"checking\"", "reviewState")
          .embeddedSubProcess().startEvent("review-start")
          .serviceTask("check", t -> t.zeebeJobType("ui-tree-check")).endEvent("review-end").subProcessDone()
          .callActivity("fulfil", c -> c.zeebeProcessId("ui-tree-child"))
          .endEvent("end").done();

  /**
   * What the tree runs left, as the engine told the test: three instances waiting at {@code check} inside
   * {@code review}, then the first one's check completed, so it waits in the call activity {@code fulfil} for its child
   * instance at {@code pack}.
   */
  private record TreeRuns(List<Long> instances, long movedOn, long child, long checkMillisAtMost) {

    List<Long> atCheck() {
      return instances.stream().filter(i -> i != movedOn).toList();
    }
  }

  private TreeRuns treeRuns;

  private TreeRuns treeRuns() {
    if (treeRuns != null) {
      return treeRuns;
    }
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(TREE_CHILD, "ui-tree-child.bpmn")
          .addProcessModel(TREE, "ui-tree.bpmn").send().join();
      long before = System.nanoTime();
      List<Long> instances = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        instances.add(client.newCreateInstanceCommand().bpmnProcessId("ui-tree").latestVersion()
            .variables(Map.of("orderId", "t-" + i)).send().join().getProcessInstanceKey());
      }
      ActivatedJob check = SharedWebappNode.activateFor(client, "ui-tree-check", instances.getFirst());
      client.newCompleteCommand(check).send().join();
      long checkMillisAtMost = (System.nanoTime() - before) / 1_000_000;
      // the child's job, activated for the child's key (the engine's word for which instance the call started), then
      // handed back at once: no job held until its timeout, whose record would move the shared node minutes later
      ActivatedJob pack = SharedWebappNode.activate(client, "ui-tree-pack", 1).getFirst();
      client.newFailCommand(pack).retries(pack.getRetries()).retryBackoff(Duration.ZERO).send().join();
      long child = pack.getProcessInstanceKey();
      await().atMost(Duration.ofSeconds(30)).until(() -> Http.post(runs.baseUrl() + "/v2/process-instances/search",
          "{\"filter\": {\"processInstanceKey\": \"" + child + "\", \"parentProcessInstanceKey\": \""
              + instances.getFirst() + "\"}}").json().path("page").path("totalItems").asLong() == 1
          && Http.post(runs.baseUrl() + "/v2/element-instances/search", "{\"filter\": {\"processDefinitionId\":"
              + " \"ui-tree\", \"elementId\": \"check\", \"state\": \"ACTIVE\"}}").json().path("page")
              .path("totalItems").asLong() == 2);
      treeRuns = new TreeRuns(List.copyOf(instances), instances.getFirst(), child, checkMillisAtMost);
      return treeRuns;
    }
  }

  /** A page as wide as a 1280 px screen: the views must stay readable there. */
  private Page narrowPage() {
    Page narrow = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900)).newPage();
    narrow.setDefaultTimeout(20_000);
    return narrow;
  }

  private static List<String> listedKeys(Page on) {
    return on.locator("#instances-table tbody tr[data-key]").all().stream().map(row -> row.getAttribute("data-key"))
        .toList();
  }

  private static List<String> keys(List<Long> instances) {
    return instances.stream().map(String::valueOf).toList();
  }

  /**
   * The list of a process shows its diagram above, with per-element counts; clicking an element lists exactly the
   * instances at it (an active instance of the element), as the engine left them: two at {@code check}, one at
   * {@code fulfil}. The filter is in the URL; clicking the chosen element again shows the whole list.
   */
  @Test
  @Order(19)
  void clickingAnElementOnTheListsDiagramListsExactlyTheInstancesAtIt() {
    TreeRuns tree = treeRuns();
    Page narrow = narrowPage();
    try {
      narrow.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-tree");
      Locator rows = narrow.locator("#instances-table tbody tr[data-key]");
      assertThat(rows).hasCount(3);
      assertThat(narrow.locator("#list-diagram-canvas .badges[data-element='check'] .badge-active")).hasText("2");
      assertThat(narrow.locator("#list-diagram-canvas .badges[data-element='fulfil'] .badge-active")).hasText("1");
      screenshot(narrow, "instance-list-with-diagram");

      narrow.locator("#list-diagram-canvas g[data-element-id='check']").first().click();
      assertThat(narrow.locator("#chosen-element")).hasText("check");
      assertThat(rows).hasCount(2);
      assertThat(listedKeys(narrow)).containsExactlyInAnyOrderElementsOf(keys(tree.atCheck()));
      assertThat(narrow.locator("#filter-form input[name=elementId]")).hasValue("check");
      assertThat(narrow.locator("#list-diagram-canvas .djs-element[data-element-id='check']"))
          .hasClass(Pattern.compile("element-selected"));
      screenshot(narrow, "instance-list-by-diagram-click");

      // the link keeps the filter: opened anew, the same list
      String link = narrow.url();
      narrow.navigate(runs.baseUrl() + "/#/");
      narrow.navigate(link);
      assertThat(rows).hasCount(2);

      narrow.locator("#list-diagram-canvas g[data-element-id='fulfil']").first().click();
      assertThat(narrow.locator("#chosen-element")).hasText("fulfil");
      assertThat(rows).hasCount(1);
      assertThat(listedKeys(narrow)).containsExactly(String.valueOf(tree.movedOn()));

      narrow.locator("#list-diagram-canvas g[data-element-id='fulfil']").first().click();
      assertThat(narrow.locator("#chosen-element")).hasCount(0);
      assertThat(rows).hasCount(3);
      assertThat(listedKeys(narrow)).containsExactlyInAnyOrderElementsOf(keys(tree.instances()));
    } finally {
      narrow.context().close();
    }
  }

  /** Every column sorts; "last updated" both ways, the order checked on the values the rows carry. */
  @Test
  @Order(20)
  void theListSortsByLastUpdatedBothWays() {
    treeRuns();
    page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-tree");
    Locator rows = page.locator("#instances-table tbody tr[data-key]");
    assertThat(rows).hasCount(3);
    assertThat(page.locator("#instances-table thead a.sort")).hasCount(9);

    page.click("#instances-table a.sort[data-sort='lastUpdateDate']");
    assertThat(page.locator("#instances-table a.sort[data-sort='lastUpdateDate']")).containsText("▲");
    assertThat(page).hasURL(Pattern.compile(".*sort=lastUpdateDate.*"));
    assertSortedByLastUpdate(rows, true);
    // the instance whose check completed moved on last
    assertThat(rows.last()).hasAttribute("data-key", String.valueOf(treeRuns().movedOn()));

    page.click("#instances-table a.sort[data-sort='lastUpdateDate']");
    assertThat(page.locator("#instances-table a.sort[data-sort='lastUpdateDate']")).containsText("▼");
    assertSortedByLastUpdate(rows, false);
    assertThat(rows.first()).hasAttribute("data-key", String.valueOf(treeRuns().movedOn()));
    screenshot("instance-list-by-last-updated");
  }

  /**
   * The instance page's element tree: the sub-process's instance holds its check, the call activity links the called
   * instance (the one the engine handed the child's job for), durations shown (the completed check's no longer than
   * the test's own time from creation to completion); the sub-process's local variable is shown alone for its scope.
   */
  @Test
  @Order(21)
  void theInstancePageShowsTheElementTreeWithDurationsVariablesPerScopeAndTheCalledInstance() {
    TreeRuns tree = treeRuns();
    Page narrow = narrowPage();
    try {
      narrow.navigate(runs.baseUrl() + "/#/instances/" + tree.movedOn());
      Locator review = narrow.locator("#element-tree li[data-element='review']");
      Locator check = review.locator("li[data-element='check']");
      assertThat(check).hasAttribute("data-state", "COMPLETED");
      assertThat(review.locator("li[data-element='review-start']")).hasCount(1);
      assertThat(narrow.locator("#element-tree > li > ul > li[data-element='check']")).hasCount(0);
      long checkMillis = Long.parseLong(check.locator(".duration").first().getAttribute("data-millis"));
      assertThat(checkMillis).isBetween(0L, tree.checkMillisAtMost());
      Locator fulfil = narrow.locator("#element-tree li[data-element='fulfil']");
      assertThat(fulfil).hasAttribute("data-state", "ACTIVE");
      assertThat(fulfil.locator(".duration").first()).containsText("running");
      assertThat(fulfil.locator("a.called-instance")).hasAttribute("href", "#/instances/" + tree.child());
      assertThat(narrow.locator("#called-table tr[data-key='" + tree.child() + "']")).containsText("fulfil");
      screenshot(narrow, "instance-element-tree");

      review.locator("button.scope-variables").first().click();
      Locator variables = narrow.locator("#variables-table tbody tr[data-name]");
      assertThat(variables).hasCount(1);
      assertThat(variables.first()).hasAttribute("data-name", "reviewState");
      assertThat(narrow.locator("#variables-scope")).containsText("review");
      narrow.click("#all-scopes");
      assertThat(narrow.locator("#variables-table tr[data-name='orderId']")).containsText("\"t-1\"");

      fulfil.locator("a.called-instance").click();
      assertThat(narrow.locator("#instance-key")).hasText(String.valueOf(tree.child()));
      assertThat(narrow.locator("#parent-link")).hasText(String.valueOf(tree.movedOn()));
      assertThat(narrow.locator("#element-tree li[data-element='pack']")).hasAttribute("data-state", "ACTIVE");
      screenshot(narrow, "instance-called-child");
    } finally {
      narrow.context().close();
    }
  }

  /**
   * The dashboard at a glance and its open incidents by process: the runs' fragile process with its one instance
   * with an incident, linking to exactly that instance; the figure of open incidents is what the incident search
   * counts.
   */
  @Test
  @Order(22)
  void theDashboardShowsIncidentsByProcessLinkingToTheirInstances() {
    treeRuns();
    Page narrow = narrowPage();
    try {
      narrow.navigate(runs.baseUrl() + "/#/");
      Locator fragile = narrow.locator("#incidents-by-process-table tr[data-process='webapp-fragile']");
      assertThat(fragile.locator(".count")).hasText("1");
      // a process without incidents is not among them (the tree runs' instances wait without one)
      assertThat(narrow.locator("#incidents-by-process-table tr[data-process='ui-tree']")).hasCount(0);
      long open = Http.post(runs.baseUrl() + "/v2/incidents/search", "{\"filter\": {\"state\": \"ACTIVE\"},"
          + " \"page\": {\"limit\": 0}}").json().path("page").path("totalItems").asLong();
      assertThat(narrow.locator("#glance-incidents b")).hasText(String.valueOf(open));
      screenshot(narrow, "dashboard-at-a-glance");

      fragile.locator("a.process-incidents").click();
      Locator rows = narrow.locator("#instances-table tbody tr[data-key]");
      assertThat(rows).hasCount(1);
      assertThat(rows.first()).hasAttribute("data-key", String.valueOf(runs.fragileInstance()));
      assertThat(narrow.locator("#filter-form select[name=hasIncident]")).hasValue("true");
    } finally {
      narrow.context().close();
    }
  }

  /**
   * From the dashboard to an instance by keyboard alone: Tab to the fragile process's incidents, Enter, Tab to its
   * instance's row, Enter. Each focused row shows its focus.
   */
  @Test
  @Order(23)
  void theKeyboardAloneLeadsFromTheDashboardToAnInstance() {
    Page narrow = narrowPage();
    try {
      narrow.navigate(runs.baseUrl() + "/#/");
      assertThat(narrow.locator("#incidents-by-process-table tr[data-process='webapp-fragile']")).hasCount(1);
      tabTo(narrow, "#incidents-by-process-table tr[data-process='webapp-fragile']");
      assertThat((String) narrow.evaluate("getComputedStyle(document.activeElement).outlineStyle")).isEqualTo("solid");
      screenshot(narrow, "keyboard-dashboard-focus");
      narrow.keyboard().press("Enter");

      String row = "#instances-table tr[data-key='" + runs.fragileInstance() + "']";
      assertThat(narrow.locator(row)).hasCount(1);
      tabTo(narrow, row);
      assertThat((String) narrow.evaluate("getComputedStyle(document.activeElement).outlineStyle")).isEqualTo("solid");
      screenshot(narrow, "keyboard-list-focus");
      narrow.keyboard().press("Enter");

      assertThat(narrow.locator("#instance-key")).hasText(String.valueOf(runs.fragileInstance()));
      assertThat(narrow.locator("#instance-state")).hasText("ACTIVE");
    } finally {
      narrow.context().close();
    }
  }

  /** Presses Tab until the element {@code selector} names has the focus (at most 200 times). */
  private static void tabTo(Page on, String selector) {
    for (int i = 0; i < 200; i++) {
      if ((Boolean) on.evaluate("s => document.activeElement === document.querySelector(s)", selector)) {
        return;
      }
      on.keyboard().press("Tab");
    }
    throw new AssertionError("Tab never reached " + selector + "; focus on: "
        + on.evaluate("document.activeElement.outerHTML.slice(0, 200)"));
  }

  static void screenshot(Page on, String name) {
    on.screenshot(new Page.ScreenshotOptions().setPath(SCREENSHOTS.resolve(name + ".png")).setFullPage(true));
  }
}
