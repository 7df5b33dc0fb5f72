package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.flowpipe.testsupport.ClusterTopology;
import dev.flowpipe.testsupport.CommandOutcome;
import dev.flowpipe.testsupport.StockZeebeBroker;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.model.bpmn.Bpmn;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The stock brokers' own flow-control endpoint, {@code /actuator/flowControl} on each monitoring port, the way a
 * process outside the cluster (the flowpipe server's flow controller) sets and releases a write limit: its shapes,
 * its reach (one broker forwards to every partition's leader), a limit in force (creations beyond it refused with
 * RESOURCE_EXHAUSTED) and released (none refused), and a new leader that does not inherit it. Every test leaves the
 * cluster without a write limit.
 */
@ExtendWith(SharedStockCluster.class)
class StockClusterFlowControlTest {

  private static final String PROCESS_ID = "flow-control-probe";
  private static final String RELEASE = "{\"write\": {\"enabled\": false}}";
  /** Records written per second per partition (the engine's follow-ups count too). */
  private static final int LIMIT = 10;
  private static final String LIMIT_BODY = "{\"write\": {\"enabled\": true, \"limit\": " + LIMIT
      + ", \"rampUp\": \"PT0S\"}}";
  private static final int CREATIONS = 150;
  private static final int IN_FLIGHT = 30;

  private StockCluster stock;

  @BeforeEach
  void keep(StockCluster stock) {
    this.stock = stock;
  }

  @AfterEach
  void release() throws Exception {
    if (stock != null) { // null: the cluster did not start
      // a POST while a broker is down answers 500 (measured): the cluster whole first
      stock.cluster().restartStopped();
      stock.cluster().broker(0).setFlowControl(RELEASE); // one broker sets every partition's leader
    }
  }

  @Nested
  class TheEndpoint {

    @Test
    void answersEachPartitionsRequestLimiterAndNoWriteLimitByDefault() throws Exception {
      for (StockZeebeBroker broker : stock.cluster().brokers()) {
        // when
        JsonNode settings = broker.flowControl();

        // then
        System.out.println("GET /actuator/flowControl on broker " + broker.nodeId() + ": " + settings);
        assertThat(settings.isObject()).as("broker %d: %s", broker.nodeId(), settings).isTrue();
        assertThat(settings.properties()).as("broker %d: %s", broker.nodeId(), settings).isNotEmpty()
            .allSatisfy(partition -> {
              assertThat(Integer.parseInt(partition.getKey())).isBetween(1, SharedStockCluster.PARTITIONS);
              assertThat(partition.getValue().path("requestLimiter").isObject()).isTrue();
              JsonNode write = partition.getValue().path("writeRateLimit");
              assertThat(write.isNull() || !write.path("enabled").asBoolean()).as("write limit %s", write).isTrue();
            });
      }
    }

    @Test
    void refusesAnUnreadableLimitWith400AndKeepsItsSettings() throws Exception {
      StockZeebeBroker broker = stock.cluster().broker(0);
      JsonNode before = broker.flowControl();

      var answer = broker.postFlowControl("{\"write\": {\"enabled\": true, \"limit\": \"ten\"}}");

      System.out.println("POST an unreadable limit: " + answer.statusCode() + " " + answer.body());
      assertThat(answer.statusCode()).isEqualTo(400);
      assertThat(broker.flowControl()).isEqualTo(before);
    }
  }

  @Nested
  class AWriteLimit {

    @Test
    void postedToOneBrokerHoldsEveryPartitionRefusingCreationsBeyondItAndReleasedLetsThemAllThrough()
        throws Exception {
      try (ZeebeClient client = client()) {
        client.newDeployResourceCommand().addProcessModel(Bpmn.createExecutableProcess(PROCESS_ID).startEvent()
            .endEvent().done(), PROCESS_ID + ".bpmn").send().join();

        // given a write limit posted to broker 0 alone
        JsonNode answer = stock.cluster().broker(0).setFlowControl(LIMIT_BODY);
        System.out.println("POST " + LIMIT_BODY + " to broker 0: " + answer);

        // then every partition has it, as any broker reports
        assertWriteLimits(answer, true, LIMIT);
        JsonNode seenElsewhere = stock.cluster().broker(2).flowControl();
        System.out.println("GET on broker 2 after it: " + seenElsewhere);
        assertWriteLimits(seenElsewhere, true, LIMIT);

        // when creations come faster than it allows
        Burst limited = Burst.send(client, CREATIONS, IN_FLIGHT);

        // then some are refused, and fewer are accepted than the limit's records per second would carry
        System.out.println("with a write limit of " + LIMIT + " records/s per partition: " + limited);
        assertThat(limited.refused()).as("creations refused under the limit: %s", limited).isPositive();
        double allowed = LIMIT * SharedStockCluster.PARTITIONS * (limited.seconds() + 1);
        assertThat(limited.accepted()).as("accepted within %.1f s under the limit: %s", limited.seconds(), limited)
            .isLessThanOrEqualTo((int) Math.ceil(allowed));

        // when released through broker 1
        JsonNode released = stock.cluster().broker(1).setFlowControl(RELEASE);
        System.out.println("POST " + RELEASE + " to broker 1: " + released);
        assertWriteLimits(stock.cluster().broker(2).flowControl(), false, 0);
        Burst free = Burst.send(client, CREATIONS, IN_FLIGHT);

        // then none is refused
        System.out.println("after the release: " + free);
        assertThat(free.refused()).as("creations refused after the release: %s", free).isZero();
        assertThat(free.accepted()).isEqualTo(CREATIONS);
      }
    }

    @Test
    void isNotCarriedOverToANewLeaderOfAPartition() throws Exception {
      // given a write limit on every partition
      stock.cluster().broker(0).setFlowControl(LIMIT_BODY);
      int victim = stock.cluster().leaderOf(1);
      int other = (victim + 1) % SharedStockCluster.BROKERS;

      // when the leader of partition 1 is killed and another broker takes it over (release() starts it again)
      stock.cluster().kill(victim);
      int newLeader = ClusterTopology.awaitNewLeader(stock.cluster().broker(other).gateway(), 1, victim,
          Duration.ofSeconds(60));
      JsonNode after = await("partition 1 answering on its new leader").atMost(Duration.ofSeconds(60))
          .ignoreExceptions().until(() -> stock.cluster().broker(other).flowControl(), json -> json.has("1"));
      System.out.println("after broker " + victim + " (leader of partition 1) was killed, broker " + newLeader
          + " leads it; GET on broker " + other + ": " + after);

      // then the new leader runs without it: a controller must set it again
      JsonNode write = after.path("1").path("writeRateLimit");
      assertThat(write.isNull() || !write.path("enabled").asBoolean())
          .as("partition 1's write limit on its new leader: %s", write).isTrue();
    }
  }

  private static void assertWriteLimits(JsonNode settings, boolean enabled, int limit) {
    assertThat(settings.properties()).as("%s", settings).hasSize(SharedStockCluster.PARTITIONS)
        .allSatisfy(partition -> {
          JsonNode write = partition.getValue().path("writeRateLimit");
          assertThat(write.path("enabled").asBoolean()).as("partition %s: %s", partition.getKey(), write)
              .isEqualTo(enabled);
          assertThat(write.path("limit").asInt()).as("partition %s: %s", partition.getKey(), write).isEqualTo(limit);
        });
  }

  private ZeebeClient client() {
    // no retry behind our back: a RESOURCE_EXHAUSTED answer is counted, not retried
    return ZeebeClient.newClientBuilder().grpcAddress(stock.cluster().broker(0).gateway()).usePlaintext()
        .useDefaultRetryPolicy(false).defaultRequestTimeout(Duration.ofSeconds(20)).build();
  }

  /** {@code count} creations with at most {@code inFlight} unanswered at a time, and how they ended. */
  record Burst(int accepted, int refused, Map<String, Integer> otherErrors, double seconds) {

    static Burst send(ZeebeClient client, int count, int inFlight) throws InterruptedException {
      Semaphore permits = new Semaphore(inFlight);
      AtomicInteger accepted = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      Map<String, Integer> other = new TreeMap<>();
      long start = System.nanoTime();
      for (int i = 0; i < count; i++) {
        permits.acquire();
        client.newCreateInstanceCommand().bpmnProcessId(PROCESS_ID).latestVersion().send()
            .whenComplete((result, error) -> {
              switch (CommandOutcome.of(error)) {
                case ACCEPTED -> accepted.incrementAndGet();
                case REJECTED -> refused.incrementAndGet();
                default -> {
                  synchronized (other) {
                    other.merge(CommandOutcome.kind(error), 1, Integer::sum);
                  }
                }
              }
              permits.release();
            });
      }
      if (!permits.tryAcquire(inFlight, 60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("creations unanswered 60 s after the last was sent");
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      synchronized (other) {
        return new Burst(accepted.get(), refused.get(), Map.copyOf(other), Math.round(seconds * 10) / 10.0);
      }
    }
  }
}
