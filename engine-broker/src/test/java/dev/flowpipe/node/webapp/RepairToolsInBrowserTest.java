package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.microsoft.playwright.Browser;
import com.microsoft.playwright.Locator;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.LocatorAssertions;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import dev.flowpipe.testsupport.DelayingProxy;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.ZeebeFuture;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.client.api.response.ProcessInstanceEvent;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Operate's repair tools (issue 35) in the machine's headless Chromium, on the shared node (operations on, no
 * authentication): a modification moving a token past a failing task, a migration to version 2 through the mapping
 * editor, the deletion of finished instances from the list, the audit trail of an instance and the audit log page,
 * and the suspension and resumption of a running batch on its page. Each test runs instances of processes of its own;
 * what the engine did is checked through the official client where it can say (the jobs it hands out). Screenshots
 * ({@code repair-*.png}) go to {@code target/screenshots/}.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RepairToolsInBrowserTest {

  /** Pages read six searches, the XML and the diagram: more than Playwright's default 5 s on a loaded machine. */
  private static final LocatorAssertions.HasTextOptions SLOW_TEXT = new LocatorAssertions.HasTextOptions().setTimeout(30_000);
  private static final LocatorAssertions.ContainsTextOptions SLOW_CONTAINS =
      new LocatorAssertions.ContainsTextOptions().setTimeout(30_000);
  private static final LocatorAssertions.HasCountOptions SLOW_COUNT = new LocatorAssertions.HasCountOptions().setTimeout(30_000);

  private Runs runs;
  private Playwright playwright;
  private Browser browser;
  private Page page;

  @BeforeAll
  void launch(Runs runs) throws Exception {
    this.runs = runs;
    Files.createDirectories(WebappInBrowserTest.SCREENSHOTS);
    playwright = Playwright.create();
    browser = HeadlessChromium.launch(playwright);
  }

  @BeforeEach
  void openPage() {
    // 1280 px wide: the width the tools must be readable at
    page = browser.newContext(new Browser.NewContextOptions().setViewportSize(1280, 900)).newPage();
    page.setDefaultTimeout(30_000);
  }

  @AfterEach
  void closePage() {
    page.context().close();
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

  private static void confirm(Page on, String expected) {
    assertThat(on.locator("#confirm-text")).containsText(expected);
    on.click("#confirm-ok");
  }

  private void deploy(BpmnModelInstance model, String resource) {
    try (ZeebeClient client = runs.node().client()) {
      client.newDeployResourceCommand().addProcessModel(model, resource).send().join();
    }
  }

  private long start(String processId) {
    try (ZeebeClient client = runs.node().client()) {
      return client.newCreateInstanceCommand().bpmnProcessId(processId).latestVersion().send().join()
          .getProcessInstanceKey();
    }
  }

  private static ActivatedJob jobOf(ZeebeClient client, String type, long instance) {
    return SharedWebappNode.activateFor(client, type, instance);
  }

  private void awaitSearchable(String entity, String filter) {
    await().atMost(Duration.ofSeconds(30)).until(() ->
        Http.post(runs.baseUrl() + "/v2/" + entity + "/search", "{\"filter\": " + filter + ", \"page\": {\"limit\": 0}}")
            .json().path("page").path("totalItems").asLong() > 0);
  }

  private Locator element(String container, String elementId) {
    return page.locator(container + " .djs-element[data-element-id='" + elementId + "']");
  }

  @Nested
  class AModification {

    private static final BpmnModelInstance STUCK = Bpmn.createExecutableProcess("ui-repair-stuck").name("Stuck payment")
        .startEvent("received")
        .serviceTask("charge", t -> t.name("Charge card").zeebeJobType("ui-repair-charge"))
        .endEvent("done").name("Paid").done();

    @Test
    void movesTheTokenPastAFailingTaskAndTheInstanceCompletesWithTheModificationInItsAuditTrail() {
      // given an instance stuck on a task whose job failed without retries (an incident)
      deploy(STUCK, "ui-repair-stuck.bpmn");
      long instance = start("ui-repair-stuck");
      long charge;
      try (ZeebeClient client = runs.node().client()) {
        ActivatedJob job = jobOf(client, "ui-repair-charge", instance);
        charge = job.getElementInstanceKey();
        client.newFailCommand(job).retries(0).errorMessage("card gateway down").send().join();
      }
      awaitSearchable("incidents", "{\"processInstanceKey\": \"" + instance + "\", \"state\": \"ACTIVE\"}");
      page.navigate(runs.baseUrl() + "/#/instances/" + instance);
      assertThat(element("#diagram", "charge")).hasClass(Pattern.compile("element-incident"),
          new LocatorAssertions.HasClassOptions().setTimeout(30_000));

      // when the operator picks the failing task on the diagram to terminate, and the end event to activate
      page.click("#modify-instance");
      element("#diagram", "charge").click();
      assertThat(page.locator("#modify-element")).hasValue("charge");
      assertThat(page.locator("#modify-terminate")).hasText("Terminate its 1 active instance");
      page.click("#modify-terminate");
      element("#diagram", "done").click();
      assertThat(page.locator("#modify-element")).hasValue("done");
      page.fill("#modify-variables", "{\"skipped\": \"charge\"}");
      page.click("#modify-activate");
      Locator review = page.locator("#modification-table tbody tr");
      assertThat(review).hasCount(2);
      assertThat(page.locator("#modification-table tr[data-kind='terminate'][data-element='charge']")).containsText(String.valueOf(charge));
      assertThat(page.locator("#modification-table tr[data-kind='activate'][data-element='done']")).containsText("{\"skipped\":\"charge\"}");
      assertThat(element("#diagram", "charge")).hasClass(Pattern.compile("modify-terminate"));
      assertThat(element("#diagram", "done")).hasClass(Pattern.compile("modify-activate"));
      WebappInBrowserTest.screenshot(page, "repair-modification-review");
      page.click("#modify-apply");
      confirm(page, "Modify process instance " + instance + ": activate done, terminate charge (1)?");

      // then the page shows the instance completed, with the variable the activation set, and leaves the mode
      assertThat(page.locator("#instance-state")).hasText("COMPLETED", SLOW_TEXT);
      assertThat(page.locator("#variables-table tr[data-name='skipped']")).containsText("\"charge\"", SLOW_CONTAINS);
      assertThat(page.locator("#modification")).hasCount(0);
      assertThat(page.locator("#modify-instance")).hasCount(0);
      // and its audit trail shows the modification with the element activated and the element instance terminated
      Locator modified = page.locator("#audit-table tr[data-operation='MODIFY']");
      assertThat(modified).hasCount(1, SLOW_COUNT);
      assertThat(modified).containsText("SUCCESS");
      assertThat(modified.locator(".detail[data-detail='activatedElementIds']")).containsText("done");
      assertThat(modified.locator(".detail[data-detail='terminatedElementInstanceKeys']")).containsText(String.valueOf(charge));
      WebappInBrowserTest.screenshot(page, "repair-modification-completed");

      // and the audit log page finds it by operation and instance
      page.navigate(runs.baseUrl() + "/#/audit?operationType=MODIFY&processInstanceKey=" + instance);
      Locator listed = page.locator("#audit-log-table tbody tr[data-operation='MODIFY']");
      assertThat(listed).hasCount(1, SLOW_COUNT);
      assertThat(listed).containsText(String.valueOf(instance));
      assertThat(page.locator("#audit-page-info")).hasText("1–1 of 1 entries");
      WebappInBrowserTest.screenshot(page, "repair-audit-log");
    }

    @Test
    void isOfferedOnlyForAnActiveInstanceAndUsableFromTheKeyboard() {
      deploy(STUCK, "ui-repair-stuck.bpmn");
      long instance = start("ui-repair-stuck");
      awaitSearchable("element-instances", "{\"processInstanceKey\": \"" + instance + "\", \"elementId\": \"charge\"}");
      page.navigate(runs.baseUrl() + "/#/instances/" + instance);
      assertThat(element("#diagram", "charge")).hasClass(Pattern.compile("element-active"),
          new LocatorAssertions.HasClassOptions().setTimeout(30_000));

      // the mode opens with the focus on its element list; the keyboard picks an element and adds an activation
      page.focus("#modify-instance");
      page.keyboard().press("Enter");
      assertThat(page.locator("#modify-element")).isFocused();
      page.selectOption("#modify-element", "done");
      page.focus("#modify-activate");
      page.keyboard().press("Enter");
      assertThat(page.locator("#modification-table tr[data-kind='activate'][data-element='done']")).hasCount(1);
      // an element with no active instance offers nothing to terminate
      assertThat(page.locator("#modify-terminate")).isDisabled();
      // removing the last instruction leaves nothing to apply; leaving the mode sends nothing
      page.click("#modification-table button[data-remove='activate']");
      assertThat(page.locator("#modify-apply")).isDisabled();
      page.click("#modify-close");
      assertThat(page.locator("#modification")).hasCount(0);
      assertThat(page.locator("#instance-state")).hasText("ACTIVE");
      try (ZeebeClient client = runs.node().client()) {
        client.newCompleteCommand(jobOf(client, "ui-repair-charge", instance)).send().join();
      }
      assertThat(page.locator("#instance-state")).hasText("COMPLETED", SLOW_TEXT);
      assertThat(page.locator("#modify-instance")).hasCount(0);
    }
  }

  @Nested
  class AMigration {

    private static final BpmnModelInstance VERSION_1 = Bpmn.createExecutableProcess("ui-repair-migrating").startEvent("start")
        .serviceTask("review", t -> t.name("Review").zeebeJobType("ui-repair-review")).endEvent("end").done();

    private static final BpmnModelInstance VERSION_2 = Bpmn.createExecutableProcess("ui-repair-migrating").startEvent("start")
        .serviceTask("review", t -> t.name("Review").zeebeJobType("ui-repair-review"))
        .serviceTask("only-in-v2", t -> t.name("Archive").zeebeJobType("ui-repair-archive"))
        .endEvent("end").done();

    @Test
    void movesAnInstanceToVersionTwoThroughTheMappingEditorAndThePageShowsTheNewDiagram() {
      // given an instance of version 1 waiting at "review", and version 2 deployed after it started
      long version2;
      long instance;
      try (ZeebeClient client = runs.node().client()) {
        client.newDeployResourceCommand().addProcessModel(VERSION_1, "ui-repair-migrating.bpmn").send().join();
        instance = client.newCreateInstanceCommand().bpmnProcessId("ui-repair-migrating").latestVersion().send().join()
            .getProcessInstanceKey();
        version2 = client.newDeployResourceCommand().addProcessModel(VERSION_2, "ui-repair-migrating.bpmn").send().join()
            .getProcesses().getFirst().getProcessDefinitionKey();
      }
      awaitSearchable("element-instances", "{\"processInstanceKey\": \"" + instance + "\", \"elementId\": \"review\"}");
      awaitSearchable("process-definitions", "{\"processDefinitionKey\": \"" + version2 + "\"}");
      page.navigate(runs.baseUrl() + "/#/instances/" + instance);
      assertThat(page.locator("#instance-facts")).containsText("v1", SLOW_CONTAINS);
      assertThat(element("#diagram", "only-in-v2")).hasCount(0);

      // when the operator chooses version 2: both diagrams, the active element mapped to the one of the same id
      page.click("#migrate-instance");
      page.selectOption("#migration-target", String.valueOf(version2));
      assertThat(element("#migration-source-diagram", "review")).hasCount(1);
      assertThat(element("#migration-target-diagram", "only-in-v2")).hasCount(1);
      Locator mapping = page.locator("#migration-table select[data-source='review']");
      assertThat(mapping).hasValue("review");
      assertThat(page.locator("#migration-table tbody tr")).hasCount(1);
      assertThat(page.locator("#migration-review")).containsText("review → review");
      // a mapping left open is named and blocks the migration
      mapping.selectOption("");
      assertThat(page.locator("#migration-review")).containsText("review has no target");
      assertThat(page.locator("#migrate-apply")).isDisabled();
      mapping.selectOption("review");
      WebappInBrowserTest.screenshot(page, "repair-migration-mapping");
      page.click("#migrate-apply");
      confirm(page, "Migrate process instance " + instance + " to ui-repair-migrating version 2 (review → review)?");

      // then the page shows version 2 and its diagram, the instance still at "review"
      assertThat(page.locator("#instance-facts")).containsText("v2", SLOW_CONTAINS);
      assertThat(element("#diagram", "only-in-v2")).hasCount(1, SLOW_COUNT);
      assertThat(element("#diagram", "review")).hasClass(Pattern.compile("element-active"));
      assertThat(page.locator("#migration")).hasCount(0);
      assertThat(page.locator("#audit-table tr[data-operation='MIGRATE']")).hasCount(1, SLOW_COUNT);
      WebappInBrowserTest.screenshot(page, "repair-migrated");
      // and the engine runs it on in version 2: its job is of version 2, and after it comes the element only v2 has
      try (ZeebeClient client = runs.node().client()) {
        ActivatedJob review = jobOf(client, "ui-repair-review", instance);
        assertThat(review.getProcessDefinitionKey()).isEqualTo(version2);
        client.newCompleteCommand(review).send().join();
        assertThat(jobOf(client, "ui-repair-archive", instance).getElementId()).isEqualTo("only-in-v2");
      }
    }
  }

  @Nested
  class TheDeletionOfFinishedInstances {

    private static final BpmnModelInstance SHORT = Bpmn.createExecutableProcess("ui-repair-delete").startEvent()
        .serviceTask("work", t -> t.zeebeJobType("ui-repair-delete-work")).endEvent().done();

    @Test
    void deletesOneAndThenSeveralFromTheListWhileARunningOneCannotBeDeleted() {
      // given three finished instances and a running one
      deploy(SHORT, "ui-repair-delete.bpmn");
      List<Long> finished = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        finished.add(start("ui-repair-delete"));
      }
      try (ZeebeClient client = runs.node().client()) {
        for (long instance : finished) {
          client.newCompleteCommand(jobOf(client, "ui-repair-delete-work", instance)).send().join();
        }
      }
      long running = start("ui-repair-delete");
      page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-repair-delete");
      for (long instance : finished) {
        assertThat(page.locator("#instances-table tr[data-key='" + instance + "'][data-state='COMPLETED']")).hasCount(1, SLOW_COUNT);
      }
      assertThat(page.locator("#instances-table tr[data-key='" + running + "'][data-state='ACTIVE']")).hasCount(1, SLOW_COUNT);

      // a running instance selected is not counted for deletion, and the page says why
      page.check(row(running) + " input.select");
      assertThat(page.locator("#delete-selected")).isDisabled();
      assertThat(page.locator("#delete-note")).hasText("1 selected instance is still running and cannot be deleted: cancel first.");
      WebappInBrowserTest.screenshot(page, "repair-delete-running-selected");

      // one finished instance: deleted by its own route, and it leaves the list
      page.uncheck(row(running) + " input.select");
      page.check(row(finished.get(0)) + " input.select");
      assertThat(page.locator("#delete-selected")).hasText("Delete selected finished… (1)");
      page.click("#delete-selected");
      confirm(page, "Delete finished process instance " + finished.get(0) + "?");
      assertThat(page.locator(row(finished.get(0)))).hasCount(0, SLOW_COUNT);
      assertThat(page.locator("#message")).hasText("process instance " + finished.get(0) + " deleted");

      // two finished and the running one selected: a batch deletes the two; its page shows each item's outcome
      for (long instance : List.of(finished.get(1), finished.get(2), running)) {
        page.check(row(instance) + " input.select");
      }
      assertThat(page.locator("#delete-selected")).hasText("Delete selected finished… (2)");
      assertThat(page.locator("#delete-note")).containsText("1 selected instance is still running");
      page.click("#delete-selected");
      confirm(page, "Delete 2 finished process instances?");
      page.waitForURL(Pattern.compile(".*#/batches/\\d+"));
      assertThat(page.locator("#batch-state")).hasText("COMPLETED", SLOW_TEXT);
      assertThat(page.locator("#batch-counts")).hasText("2 of 2 done, 0 failed");
      WebappInBrowserTest.screenshot(page, "repair-delete-batch");

      // then the list holds the running instance only, and the API finds none of the deleted ones
      page.navigate(runs.baseUrl() + "/#/instances?processDefinitionId=ui-repair-delete");
      assertThat(page.locator("#instances-table tbody tr[data-key]")).hasCount(1, SLOW_COUNT);
      assertThat(page.locator(row(running))).hasCount(1);
      JsonNode found = Http.post(runs.baseUrl() + "/v2/process-instances/search", "{\"filter\": {\"processDefinitionId\":"
          + " \"ui-repair-delete\"}}").json().path("items");
      assertThat(found).singleElement().satisfies(i -> assertThat(i.path("processInstanceKey").asLong()).isEqualTo(running));
      WebappInBrowserTest.screenshot(page, "repair-delete-after");
    }

    @Test
    void deletesAFinishedInstanceFromItsPage() {
      deploy(SHORT, "ui-repair-delete.bpmn");
      long instance = start("ui-repair-delete");
      try (ZeebeClient client = runs.node().client()) {
        client.newCompleteCommand(jobOf(client, "ui-repair-delete-work", instance)).send().join();
      }
      page.navigate(runs.baseUrl() + "/#/instances/" + instance);
      assertThat(page.locator("#instance-state")).hasText("COMPLETED", SLOW_TEXT);

      page.click("#delete-instance");
      confirm(page, "Delete finished process instance " + instance + "?");

      page.waitForURL(Pattern.compile(".*#/instances$"));
      assertThat(Http.post(runs.baseUrl() + "/v2/process-instances/search", "{\"filter\": {\"processInstanceKey\": \""
          + instance + "\"}}").json().path("page").path("totalItems").asLong()).isZero();
    }

    private static String row(long instance) {
      return "#instances-table tr[data-key='" + instance + "']";
    }
  }

  /**
   * A running batch suspended and resumed from its page. The batch runs on a web app of its own over the shared node,
   * whose commands reach the gateway through a proxy holding each direction 100 ms, one command at a time: each item
   * takes at least a 200 ms round trip, so the 60 items run for 12 s or more, and the page acts while the batch runs.
   */
  @Nested
  class ABatch {

    private static final int ITEMS = 60;

    private static final BpmnModelInstance WAITING = Bpmn.createExecutableProcess("ui-repair-batch").startEvent()
        .serviceTask("wait", t -> t.zeebeJobType("ui-repair-nobody")).endEvent().done();

    @Test
    void isSuspendedAndResumedFromItsPageWhileItRunsAndThenEndsWithEveryItemDone() throws Exception {
      deploy(WAITING, "ui-repair-batch.bpmn");
      try (ZeebeClient client = runs.node().client()) {
        List<ZeebeFuture<ProcessInstanceEvent>> created = new ArrayList<>();
        for (int i = 0; i < ITEMS; i++) {
          created.add(client.newCreateInstanceCommand().bpmnProcessId("ui-repair-batch").latestVersion().send());
        }
        created.forEach(ZeebeFuture::join);
      }
      String[] gateway = runs.node().gatewayAddress().split(":");
      try (DelayingProxy slowGateway = DelayingProxy.start(
          new InetSocketAddress(gateway[0], Integer.parseInt(gateway[1])), Duration.ofMillis(100));
          ConfigurableApplicationContext webapp = webappThrough(slowGateway)) {
        String baseUrl = "http://127.0.0.1:" + webapp.getEnvironment().getProperty("local.server.port");
        page.navigate(baseUrl + "/#/instances?processDefinitionId=ui-repair-batch&state=ACTIVE");
        assertThat(page.locator("#page-info")).hasText(ITEMS + " instances", SLOW_TEXT);
        page.click("#cancel-matching");
        confirm(page, "Cancel " + ITEMS + " active root instances");
        page.waitForURL(Pattern.compile(".*#/batches/\\d+"));
        String key = page.url().replaceAll(".*#/batches/", "");

        // when suspended while it runs
        page.click("#batch-suspend");
        assertThat(page.locator("#batch-state")).hasText("SUSPENDED");
        assertThat(page.locator("#batch-resume")).isVisible();
        assertThat(page.locator("#batch-suspend")).isHidden();
        int doneWhenSuspended = done(page);
        assertThat(doneWhenSuspended).as("items done when the page suspended the batch").isLessThan(ITEMS);
        WebappInBrowserTest.screenshot(page, "repair-batch-suspended");
        // then it stays suspended: the API says so, and its count has not moved past what was in flight
        JsonNode suspended = Http.get(baseUrl + "/v2/batch-operations/" + key).json();
        assertThat(suspended.path("state").asText()).isEqualTo("SUSPENDED");
        assertThat(suspended.path("operationsCompletedCount").asInt()).isLessThan(ITEMS);

        // when resumed, then it runs to the end, every item done
        page.click("#batch-resume");
        assertThat(page.locator("#batch-state")).hasText("COMPLETED", new LocatorAssertions.HasTextOptions().setTimeout(120_000));
        assertThat(page.locator("#batch-counts")).hasText(ITEMS + " of " + ITEMS + " done, 0 failed");
        WebappInBrowserTest.screenshot(page, "repair-batch-resumed-completed");
        // and the engine cancelled every instance (the read model holds none active)
        assertThat(Http.post(runs.baseUrl() + "/v2/process-instances/search", "{\"filter\": {\"processDefinitionId\":"
            + " \"ui-repair-batch\", \"state\": \"ACTIVE\"}, \"page\": {\"limit\": 0}, \"consistency\": {\"timeout\":"
            + " \"2s\"}}").json().path("page").path("totalItems").asLong()).isZero();
        page.navigate(baseUrl + "/#/batches");
        assertThat(page.locator("#batches-table tr[data-key='" + key + "']")).containsText("COMPLETED");
      }
    }

    /** The items done, as the batch page shows them ("n of m done, f failed"). */
    private static int done(Page on) {
      Matcher counts = Pattern.compile("(\\d+) of (\\d+) done").matcher(on.locator("#batch-counts").textContent());
      assertThat(counts.find()).as("the batch's counts on its page").isTrue();
      return Integer.parseInt(counts.group(1));
    }

    private ConfigurableApplicationContext webappThrough(DelayingProxy gateway) {
      return SharedWebappNode.webappOnItsOwn(runs, "127.0.0.1:" + gateway.port(), Map.of(
          "flowpipe.webapp.operations.enabled", true, "flowpipe.webapp.operations.batch-parallelism", 1));
    }
  }
}
