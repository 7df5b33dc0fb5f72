package dev.flowpipe.systemtests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.testsupport.ScratchDirectories;
import dev.flowpipe.testsupport.StockZeebeBroker;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A partition leader of the shared stock cluster ({@link SharedStockCluster}) killed with SIGKILL under the mixed load
 * while the flowpipe server (its runnable jar, its own process) holds a write limit on the cluster: a static
 * {@code write-limit}, which its controller puts in force through the brokers' {@code POST /actuator/flowControl}.
 * The new leader builds its limiter from its own configuration, so the limit is in force there only if the server
 * applies it again: seen on the new leader's own {@code GET /actuator/flowControl}, timed from the kill. The read
 * model is exact afterwards (the clients' answers and one clean pass over the engine's records). The short version of
 * the failover part of {@code ServerBesideTheStockClusterTest}'s degraded-store test, which runs only on request.
 */
@ExtendWith(SharedStockCluster.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerLimitOnANewLeaderTest {

  /** Records per second: far above the light load's (nothing refused), and not a figure a broker comes with. */
  private static final int WRITE_LIMIT = 1234;
  /** The broker whose gateway the server and the clients use; never the one killed. */
  private static final int GATEWAY_NODE = 0;
  /** One kill after 5 s of the light mixed load; 3 s more load after the failover. */
  private static final CrashSettings ONE_KILL = new CrashSettings(1, SharedStockCluster.PARTITIONS, 20261127,
      Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(3), new CrashLoad.Rates(6, 6, 0.5), List.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  private StockCluster stock;
  private ServerProcess server;

  @AfterAll
  void stopTheServerAndLiftItsLimit() throws Exception {
    if (server != null) {
      server.close();
    }
    if (stock != null) {
      // the next test class gets the cluster without a limit (the killed broker restarts without one)
      stock.cluster().broker(GATEWAY_NODE).setFlowControl("{\"write\": {\"enabled\": false}}");
    }
  }

  @Test
  void aLeaderKilledWhileTheServerHoldsALimitHasItsSuccessorRunWithTheLimitAndTheReadModelIsExact(StockCluster stock,
      SearchStore store, EmbeddedSearchStore openSearch) throws Exception {
    this.stock = stock;
    // given the server beside the cluster, holding a static write limit on it
    Map<String, Object> settings = ServerProcess.besideTheCluster(stock, openSearch.url(), GATEWAY_NODE);
    StockZeebeBroker gateway = stock.cluster().broker(GATEWAY_NODE);
    settings.put("flowpipe.server.flow-control.enabled", false); // no controller's decisions: the static limit only
    settings.put("flowpipe.server.flow-control.write-limit", WRITE_LIMIT);
    server = ServerProcess.start(ScratchDirectories.create("server-limit-new-leader-"), settings);
    await("the server's limit on every partition").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().dontCatchUncaughtExceptions().until(() -> limitsOn(gateway).size() == SharedStockCluster.PARTITIONS
            && limitsOn(gateway).values().stream().allMatch(limit -> limit == WRITE_LIMIT));

    // when the leader of a partition (not the gateway's broker) is killed with SIGKILL under the mixed load
    StockClusterCrash.Report report;
    long[] killedAt = {0};
    try (LimitWatch watch = new LimitWatch(stock.cluster().brokers())) {
      report = StockClusterCrash.runSparingTheGateway(stock, store, openSearch.url(), ONE_KILL, GATEWAY_NODE, line -> {
        if (line.contains("kill 1/1 at") && killedAt[0] == 0) {
          killedAt[0] = System.nanoTime(); // told just before the kill
        }
        System.out.println(line);
      });
      StockClusterCrash.Failover failover = report.failovers().getFirst();
      long leaderKnownAt = killedAt[0] + (long) (failover.newLeaderAfterSeconds() * 1e9);

      // then the new leader runs with the server's limit, by its own endpoint
      LimitWatch.Sample inForce = await("the limit on broker " + failover.newLeader() + ", partition "
          + failover.partition() + "'s new leader").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
          .dontCatchUncaughtExceptions() // the load's and the watch's clients are not what is awaited
          .until(() -> watch.first(failover.newLeader(), failover.partition(), leaderKnownAt, WRITE_LIMIT),
              Optional::isPresent).orElseThrow();
      Optional<LimitWatch.Sample> without =
          watch.firstWithout(failover.newLeader(), failover.partition(), leaderKnownAt);
      double limitAfter = (inForce.nanos() - killedAt[0]) / 1e9;
      System.out.printf("server's limit on a new leader: broker %d (leader of partition %d) killed; broker %d leads "
              + "it %.1f s after; the limit %d in force on it %.2f s after the kill (%s); read model %s; refused %s;"
              + " load %s%n", failover.killedNode(), failover.partition(), failover.newLeader(),
          failover.newLeaderAfterSeconds(), WRITE_LIMIT, limitAfter, without.map(sample -> String.format(
              "without it %.2f s after the kill", (sample.nanos() - killedAt[0]) / 1e9))
              .orElse("never seen without it"), report.crash().passed() ? "exact" : "NOT exact", report.refusals(),
          report.crash().load());
      assertThat(failover.newLeader()).isNotEqualTo(failover.killedNode());
      assertThat(failover.exportingResumed()).as("the new leader exports: %s", failover).isTrue();
      assertThat(inForce.limit()).isEqualTo(WRITE_LIMIT);
    }

    // and the read model is exact
    CrashReport crash = report.crash();
    assertThat(crash.clientOracle().instances()).as("instances the clients know").isGreaterThan(20);
    SoftAssertions.assertSoftly(soft -> {
      CrashAssertions.readModelIsExact(soft, crash, SharedStockCluster.PARTITIONS);
      // a limit 20x the load refuses nothing, around the failover too: the server posts a limit again only for a new
      // leader, not after each error answer of a broadcast that reached every live member (each POST rebuilds every
      // partition's limiter without stored permits; 20-36 of them in a failover refused one command in each of 3 runs)
      soft.assertThat(report.refusals()).as("commands refused under a limit far above the load").isEmpty();
    });
  }

  /** The write limit in force per partition, as {@code broker}'s endpoint reports it (none: absent). */
  private static Map<Integer, Integer> limitsOn(StockZeebeBroker broker) throws Exception {
    Map<Integer, Integer> limits = new LinkedHashMap<>();
    broker.flowControl().properties().forEach(partition -> {
      JsonNode write = partition.getValue().path("writeRateLimit");
      if (write.path("enabled").asBoolean()) {
        limits.put(Integer.parseInt(partition.getKey()), write.path("limit").asInt());
      }
    });
    return limits;
  }

  /**
   * Every broker's own {@code GET /actuator/flowControl} every 100 ms, each broker on a thread of its own (a broker
   * asked about a partition whose leader just died answers late), each answer kept with its time.
   */
  private static final class LimitWatch implements AutoCloseable {

    /** Partition {@code partition}'s write limit ({@code null}: none) as {@code broker} answered at {@code nanos}. */
    record Sample(long nanos, int broker, int partition, Integer limit) {}

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
    private final ScheduledExecutorService pollers;

    LimitWatch(List<StockZeebeBroker> brokers) {
      pollers = Executors.newScheduledThreadPool(brokers.size());
      for (StockZeebeBroker broker : brokers) {
        pollers.scheduleWithFixedDelay(() -> poll(broker), 0, 100, TimeUnit.MILLISECONDS);
      }
    }

    private void poll(StockZeebeBroker broker) {
      try {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(broker.monitoring().resolve(
            "/actuator/flowControl")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
        long at = System.nanoTime();
        if (answer.statusCode() != 200) {
          return;
        }
        JSON.readTree(answer.body()).properties().forEach(partition -> {
          JsonNode write = partition.getValue().path("writeRateLimit");
          samples.add(new Sample(at, broker.nodeId(), Integer.parseInt(partition.getKey()),
              write.path("enabled").asBoolean() ? write.path("limit").asInt() : null));
        });
      } catch (Exception e) {
        // a broker down or electing: no sample
      }
    }

    /** The first answer of {@code broker} after {@code since} showing {@code limit} on {@code partition}. */
    Optional<Sample> first(int broker, int partition, long since, int limit) {
      synchronized (samples) {
        return samples.stream().filter(s -> s.broker() == broker && s.partition() == partition
            && s.nanos() >= since && Integer.valueOf(limit).equals(s.limit())).findFirst();
      }
    }

    /** The first answer of {@code broker} after {@code since} showing no limit on {@code partition}. */
    Optional<Sample> firstWithout(int broker, int partition, long since) {
      synchronized (samples) {
        return samples.stream().filter(s -> s.broker() == broker && s.partition() == partition
            && s.nanos() >= since && s.limit() == null).findFirst();
      }
    }

    @Override
    public void close() {
      pollers.shutdownNow();
    }
  }
}
