package dev.flowpipe.node.webapp;

import static org.awaitility.Awaitility.await;

import dev.flowpipe.node.TestNode;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.webapp.WebappApplication;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.api.response.ActivatedJob;
import io.camunda.zeebe.model.bpmn.Bpmn;
import io.camunda.zeebe.model.bpmn.BpmnModelInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One real node for the web app's tests in this JVM, with data from real BPMN runs: three {@code webapp-order}
 * instances (one completed, two waiting at {@code ship}) and one {@code webapp-fragile} instance whose job failed
 * without retries (an incident). Tests receive the {@link Runs}.
 */
public final class SharedWebappNode implements ParameterResolver {

  /**
   * The lock every class on this node holds while it runs ({@code @ResourceLock}): classes run two at a time in this
   * module (junit-platform.properties), and the node's classes count and act on what it holds, so one at a time.
   */
  public static final String LOCK = "shared-webapp-node";

  static final BpmnModelInstance ORDER =
      Bpmn.createExecutableProcess("webapp-order").name("Webapp order").startEvent("received")
          .serviceTask("prepare", t -> t.zeebeJobType("webapp-prepare"))
          .serviceTask("ship", t -> t.zeebeJobType("webapp-ship"))
          .endEvent("shipped").done();

  static final BpmnModelInstance FRAGILE =
      Bpmn.createExecutableProcess("webapp-fragile").name("Webapp fragile").startEvent("begin")
          .serviceTask("charge", t -> t.zeebeJobType("webapp-charge"))
          .endEvent("charged").done();

  /**
   * The node and what ran on it.
   *
   * @param orderInstances the three order instances, the first one completed
   * @param fragileInstance the instance with the incident
   */
  public record Runs(TestNode node, String baseUrl, List<Long> orderInstances, long fragileInstance)
      implements ExtensionContext.Store.CloseableResource {

    @Override
    public void close() {
      node.close();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == Runs.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent("webapp-node", key -> start(), Runs.class);
  }

  private static Runs start() {
    TestNode node;
    try {
      // the operations are off without authentication unless switched on: on here, for OperationsOnNodeTest
      node = new TestNode(ScratchDirectories.create("webapp-node"))
          .with("flowpipe.webapp.operations.enabled", true).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (ZeebeClient client = node.client()) {
      client.newDeployResourceCommand().addProcessModel(ORDER, "webapp-order.bpmn")
          .addProcessModel(FRAGILE, "webapp-fragile.bpmn").send().join();
      List<Long> orders = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        orders.add(client.newCreateInstanceCommand().bpmnProcessId("webapp-order").latestVersion()
            .variables(Map.of("orderId", "o-" + i, "amount", i * 10)).send().join().getProcessInstanceKey());
      }
      long fragile = client.newCreateInstanceCommand().bpmnProcessId("webapp-fragile").latestVersion()
          .variables(Map.of("card", "4111")).send().join().getProcessInstanceKey();
      for (ActivatedJob job : activate(client, "webapp-prepare", 3)) {
        client.newCompleteCommand(job).variables(Map.of("prepared", true)).send().join();
      }
      for (ActivatedJob job : activate(client, "webapp-charge", 1)) {
        client.newFailCommand(job).retries(0).errorMessage("card declined").send().join();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        for (ActivatedJob job : activate(client, "webapp-ship", 1)) {
          if (job.getProcessInstanceKey() == orders.getFirst()) {
            client.newCompleteCommand(job).send().join();
            return true;
          }
          client.newFailCommand(job).retries(1).retryBackoff(Duration.ZERO).send().join();
        }
        return false;
      });
      return new Runs(node, "http://127.0.0.1:" + node.httpPort(), List.copyOf(orders), fragile);
    } catch (RuntimeException e) {
      node.close();
      throw e;
    }
  }

  /** Activates {@code count} jobs of a type (for five minutes), waiting until there are as many. */
  static List<ActivatedJob> activate(ZeebeClient client, String type, int count) {
    List<ActivatedJob> jobs = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      jobs.addAll(client.newActivateJobsCommand().jobType(type).maxJobsToActivate(count - jobs.size())
          .timeout(Duration.ofMinutes(5)).send().join().getJobs());
      return jobs.size() >= count;
    });
    return jobs;
  }

  /** The job of {@code type} the engine hands out for this instance, waiting until it does; others go back at once. */
  static ActivatedJob activateFor(ZeebeClient client, String type, long instance) {
    List<ActivatedJob> found = new ArrayList<>();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      for (ActivatedJob job : client.newActivateJobsCommand().jobType(type).maxJobsToActivate(10)
          .timeout(Duration.ofMinutes(5)).send().join().getJobs()) {
        if (job.getProcessInstanceKey() == instance) {
          found.add(job);
        } else {
          // another test's job: back to the engine at once
          client.newFailCommand(job).retries(job.getRetries()).retryBackoff(Duration.ZERO).send().join();
        }
      }
      return !found.isEmpty();
    });
    return found.getFirst();
  }

  /**
   * A web app on its own (a Spring context on a free port) over the node's store, sending its commands to
   * {@code gatewayAddress}, with {@code settings} besides.
   */
  static ConfigurableApplicationContext webappOnItsOwn(Runs runs, String gatewayAddress, Map<String, Object> settings) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("server.port", 0);
    // not the node's application.yaml on this class path (its readiness group names the node's broker)
    all.put("spring.config.name", "webapp-on-its-own");
    all.put("flowpipe.store.url", runs.node().store().connection().url());
    all.put("flowpipe.store.index-prefix", "flowpipe");
    all.put("flowpipe.webapp.operations.gateway-address", gatewayAddress);
    all.putAll(settings);
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(WebappApplication.DEFAULTS);
    return application.run(all.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue())
        .toArray(String[]::new));
  }
}
