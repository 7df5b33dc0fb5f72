package dev.flowpipe.node.webapp;

import static com.microsoft.playwright.assertions.PlaywrightAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import com.microsoft.playwright.assertions.PlaywrightAssertions;
import dev.flowpipe.node.webapp.SharedWebappNode.Runs;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The UI in headless Chromium for a user with the read role only, beside one with the write role: the web app on its
 * own with basic authentication, over the shared node's read model and through its gateway. The reader sees the same
 * pages without a control that acts, and the operations' API answers it 403 when its browser calls them anyway.
 * Screenshots go to {@code target/screenshots/}.
 */
@ExtendWith(SharedWebappNode.class)
@ResourceLock(SharedWebappNode.LOCK)
// it sets Playwright's default assertion timeout, which is global to the JVM
@ResourceLock(HeadlessChromium.ASSERTION_TIMEOUT_LOCK)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadOnlyUserInBrowserTest {

  private Runs runs;
  private ConfigurableApplicationContext webapp;
  private String baseUrl;
  private Playwright playwright;
  private Browser browser;

  @BeforeAll
  void start(Runs runs) throws Exception {
    this.runs = runs;
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("flowpipe.webapp.security.basic-auth", true);
    settings.put("flowpipe.webapp.security.users[0].username", "reader");
    settings.put("flowpipe.webapp.security.users[0].password", "r");
    settings.put("flowpipe.webapp.security.users[1].username", "operator");
    settings.put("flowpipe.webapp.security.users[1].password", "o");
    settings.put("flowpipe.webapp.security.users[1].roles", "read,write");
    webapp = SharedWebappNode.webappOnItsOwn(runs, runs.node().gatewayAddress(), settings);
    baseUrl = "http://127.0.0.1:" + webapp.getEnvironment().getProperty("local.server.port");
    Files.createDirectories(WebappInBrowserTest.SCREENSHOTS);
    // an instance page's seven searches, the XML and the diagram take more than the default 5 s on a loaded machine
    PlaywrightAssertions.setDefaultAssertionTimeout(30_000);
    playwright = Playwright.create();
    browser = HeadlessChromium.launch(playwright);
  }

  @AfterAll
  void stop() {
    PlaywrightAssertions.setDefaultAssertionTimeout(5_000);
    if (browser != null) {
      browser.close();
    }
    if (playwright != null) {
      playwright.close();
    }
    if (webapp != null) {
      webapp.close();
    }
  }

  private Page pageAs(String user, String password) {
    BrowserContext context = browser.newContext(new Browser.NewContextOptions().setViewportSize(1400, 1000)
        .setHttpCredentials(user, password));
    Page page = context.newPage();
    page.setDefaultTimeout(20_000);
    return page;
  }

  @Test
  void aReadOnlyUserSeesNoOperationControlsAndIsAnswered403WhenItCallsTheApi() {
    long waiting = runs.orderInstances().get(1);
    Page page = pageAs("reader", "r");
    try {
      // given the pages a writer acts on: an active instance, an instance with an incident, the instance list
      page.navigate(baseUrl + "/#/instances/" + waiting);
      assertThat(page.locator("#instance-state")).hasText("ACTIVE");
      assertThat(page.locator("#variables-table tr[data-name='orderId']")).hasCount(1);
      // then none of them offers a control that acts
      assertThat(page.locator("#cancel-instance")).hasCount(0);
      assertThat(page.locator("#variables-table button.edit")).hasCount(0);
      // nor the repair tools (issue 35): modification, migration; the audit trail is shown to readers
      assertThat(page.locator("#modify-instance")).hasCount(0);
      assertThat(page.locator("#migrate-instance")).hasCount(0);
      assertThat(page.locator("#audit-table")).hasCount(1);
      WebappInBrowserTest.screenshot(page, "reader-instance");

      // a finished instance offers no deletion
      page.navigate(baseUrl + "/#/instances/" + runs.orderInstances().getFirst());
      assertThat(page.locator("#instance-state")).hasText("COMPLETED");
      assertThat(page.locator("#delete-instance")).hasCount(0);

      page.navigate(baseUrl + "/#/instances/" + runs.fragileInstance());
      assertThat(page.locator("#incidents-table")).containsText("card declined");
      assertThat(page.locator("#incidents-table button.retry")).hasCount(0);

      // the order instances' list: the unfiltered first page holds only the newest 20 of every class's instances
      page.navigate(baseUrl + "/#/instances?processDefinitionId=webapp-order");
      assertThat(page.locator("#instances-table tr[data-key='" + waiting + "']")).hasCount(1);
      assertThat(page.locator("#cancel-matching")).hasCount(0);
      assertThat(page.locator("#cancel-selected")).hasCount(0);
      assertThat(page.locator("#instances-table input.select")).hasCount(0);
      assertThat(page.locator("#delete-selected")).hasCount(0);
      WebappInBrowserTest.screenshot(page, "reader-instance-list");

      // when its browser sends the operations anyway, then they are refused, and the instance stays active
      assertThat(statusOfPost(page, "/v2/process-instances/" + waiting + "/cancellation", "{}")).isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/process-instances/cancellation",
          "{\"filter\": {\"processDefinitionId\": \"webapp-order\"}}")).isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/process-instances/" + waiting + "/modification",
          "{\"activateInstructions\": [{\"elementId\": \"shipped\"}]}")).isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/process-instances/" + waiting + "/migration",
          "{\"targetProcessDefinitionKey\": \"1\", \"mappingInstructions\": [{\"sourceElementId\": \"ship\","
              + " \"targetElementId\": \"ship\"}]}")).isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/process-instances/" + runs.orderInstances().getFirst() + "/deletion", "{}"))
          .isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/process-instances/deletion",
          "{\"filter\": {\"processDefinitionId\": \"webapp-order\"}}")).isEqualTo(403);
      assertThat(statusOfPost(page, "/v2/audit-logs/search", "{}")).isEqualTo(200);
      page.navigate(baseUrl + "/#/instances/" + waiting);
      assertThat(page.locator("#instance-state")).hasText("ACTIVE");
    } finally {
      page.context().close();
    }
  }

  @Test
  void aUserWithTheWriteRoleSeesTheOperationControlsOnTheSamePages() {
    Page page = pageAs("operator", "o");
    try {
      page.navigate(baseUrl + "/#/instances/" + runs.orderInstances().get(1));
      assertThat(page.locator("#instance-state")).hasText("ACTIVE");
      assertThat(page.locator("#cancel-instance")).hasCount(1);
      assertThat(page.locator("#variables-table tr[data-name='orderId'] button.edit")).hasCount(1);
      assertThat(page.locator("#modify-instance")).hasCount(1);
      assertThat(page.locator("#migrate-instance")).hasCount(1);

      page.navigate(baseUrl + "/#/instances/" + runs.orderInstances().getFirst());
      assertThat(page.locator("#instance-state")).hasText("COMPLETED");
      assertThat(page.locator("#delete-instance")).hasCount(1);

      page.navigate(baseUrl + "/#/instances/" + runs.fragileInstance());
      assertThat(page.locator("#incidents-table")).containsText("card declined");
      assertThat(page.locator("#incidents-table button.retry")).hasCount(1);

      page.navigate(baseUrl + "/#/instances");
      assertThat(page.locator("#cancel-matching")).hasCount(1);
      assertThat(page.locator("#delete-selected")).hasCount(1);
      WebappInBrowserTest.screenshot(page, "writer-instance-list");
    } finally {
      page.context().close();
    }
  }

  /** The status of a POST sent by the page's own script, with the credentials its browser holds for the site. */
  private static int statusOfPost(Page page, String path, String body) {
    Object status = page.evaluate("([path, body]) => fetch(path, {method: 'POST', headers: {'Content-Type': "
        + "'application/json'}, body}).then(answer => answer.status)", java.util.List.of(path, body));
    return ((Number) status).intValue();
  }
}
