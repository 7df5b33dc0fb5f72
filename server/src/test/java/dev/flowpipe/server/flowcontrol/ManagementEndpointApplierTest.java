package dev.flowpipe.server.flowcontrol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.server.config.FlowControllerProperties;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The server's applier against fake monitoring ports of two brokers (node 0 leads partition 1, node 1 partition 2). */
class ManagementEndpointApplierTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private FakeMonitoringPort broker0;
  private FakeMonitoringPort broker1;
  private final AtomicReference<ClusterView> view = new AtomicReference<>();
  private ManagementEndpointApplier applier;

  @BeforeEach
  void startBrokers() throws Exception {
    broker0 = new FakeMonitoringPort();
    broker1 = new FakeMonitoringPort();
    FlowControllerProperties settings = settings(List.of(new FlowControllerProperties.Broker(0, broker0.url()),
        new FlowControllerProperties.Broker(1, broker1.url())));
    view.set(new ClusterView(Map.of(1, 0, 2, 1), Map.of(0, "zeebe-0", 1, "zeebe-1"), Set.of(1, 2)));
    applier = new ManagementEndpointApplier(new BrokerMonitoring(settings, HttpClient.newHttpClient()), view::get);
  }

  @AfterEach
  void stopBrokers() {
    broker0.close();
    broker1.close();
  }

  static FlowControllerProperties settings(List<FlowControllerProperties.Broker> brokers) {
    return new FlowControllerProperties(true, "time", Duration.ofSeconds(2), 100_000, 100, Duration.ofMillis(250), 0,
        Duration.ofSeconds(5), Duration.ofSeconds(60), brokers, 9600, "http", Duration.ofSeconds(2),
        "flowpipe");
  }

  private static JsonNode write(String body) throws Exception {
    return JSON.readTree(body).path("write");
  }

  @Nested
  class WhatItSends {

    @Test
    void aLimitIsPostedAsTheBrokersFlowControlConfigurationToThePartitionsLeader() throws Exception {
      applier.apply(1, OptionalInt.of(420));

      assertThat(broker0.posted).hasSize(1);
      assertThat(broker1.posted).isEmpty();
      JsonNode write = write(broker0.posted.getFirst());
      assertThat(write.path("enabled").asBoolean()).isTrue();
      assertThat(write.path("limit").asInt()).isEqualTo(420);
      assertThat(write.path("rampUp").asText()).isEqualTo("PT0S");
      assertThat(write.path("throttling").path("enabled").asBoolean())
          .as("the broker's own record-count throttle stays off").isFalse();
      assertThat(JSON.readTree(broker0.posted.getFirst()).has("request")).as("the request limiter stays").isFalse();
      assertThat(applier.inForce()).hasValue(420);
    }

    @Test
    void noLimitIsPostedAsAWriteLimitSwitchedOff() throws Exception {
      applier.apply(1, OptionalInt.of(420));
      applier.apply(1, OptionalInt.empty());

      assertThat(write(broker0.posted.getLast()).path("enabled").asBoolean()).isFalse();
      assertThat(applier.inForce()).isEmpty();
    }
  }

  @Nested
  class OneLimitForTheCluster {

    @Test
    void theSmallestLimitAnyPartitionAsksForIsInForce() throws Exception {
      applier.apply(1, OptionalInt.of(800));
      applier.apply(2, OptionalInt.of(300));
      applier.apply(1, OptionalInt.of(900));

      assertThat(broker1.posted).hasSize(1);
      assertThat(write(broker1.posted.getFirst()).path("limit").asInt()).isEqualTo(300);
      assertThat(broker0.posted).as("partition 1 asks 900, partition 2 still 300: 300 stays, not posted again")
          .hasSize(1);
      assertThat(applier.inForce()).hasValue(300);
    }

    @Test
    void aPartitionAskingForTheLimitInForceOnItsLeaderIsNotPostedAgain() throws Exception {
      applier.apply(1, OptionalInt.of(500));
      applier.apply(2, OptionalInt.of(500));
      applier.apply(1, OptionalInt.of(500));

      assertThat(broker0.posted).hasSize(1);
      assertThat(broker1.posted).as("the broadcast reached partition 2's leader").isEmpty();
    }

    @Test
    void aPartitionWhoseLeaderChangedSinceIsPostedAgain() throws Exception {
      applier.apply(1, OptionalInt.of(500));
      view.set(new ClusterView(Map.of(1, 1, 2, 1), Map.of(0, "zeebe-0", 1, "zeebe-1"), Set.of(1, 2)));

      applier.apply(1, OptionalInt.of(500));

      assertThat(broker1.posted).as("the new leader built its limiter from its own configuration").hasSize(1);
    }

    @Test
    void theLimitGoesOnlyWhenNoPartitionAsksForOne() throws Exception {
      applier.apply(1, OptionalInt.of(800));
      applier.apply(2, OptionalInt.of(300));
      applier.apply(2, OptionalInt.empty());

      assertThat(write(broker1.posted.getLast()).path("limit").asInt()).isEqualTo(800);
      applier.apply(1, OptionalInt.empty());
      assertThat(write(broker0.posted.getLast()).path("enabled").asBoolean()).isFalse();
    }
  }

  @Nested
  class WhenABrokerRefuses {

    @Test
    void anotherBrokerOfTheClusterTakesTheLimit() throws Exception {
      broker0.postStatus = 500;

      applier.apply(1, OptionalInt.of(250));

      assertThat(write(broker1.posted.getFirst()).path("limit").asInt()).isEqualTo(250);
      assertThat(applier.inForce()).hasValue(250);
    }

    @Test
    void anErrorAnswerWhileEveryLeaderHoldsTheLimitIsTakenAsAppliedAndNotPostedAgain() throws Exception {
      // given a broker that takes the limit on every live member but answers 500 (a killed member in its topology)
      broker0.postStatus = 500;
      broker0.holding(250, 250);

      // when the limit is applied, and applied again for the other partition
      applier.apply(1, OptionalInt.of(250));
      applier.apply(2, OptionalInt.of(250));

      // then it was posted once: a second POST would only rebuild every live limiter without stored permits
      assertThat(broker0.posted).hasSize(1);
      assertThat(broker1.posted).as("no other broker is asked").isEmpty();
      assertThat(applier.inForce()).hasValue(250);
    }

    @Test
    void anErrorAnswerConfirmedOnlyAtTheNextAttemptIsNotPostedAgainThen() throws Exception {
      // given both brokers answering 500 and the limit not yet shown on partition 2's leader
      broker0.postStatus = 500;
      broker1.postStatus = 500;
      broker0.holding(250, null);
      broker1.holding(250, null);
      assertThatThrownBy(() -> applier.apply(1, OptionalInt.of(250))).isInstanceOf(IllegalStateException.class);
      int posts = broker0.posted.size() + broker1.posted.size();

      // when the brokers show it on every leader by the next attempt
      broker0.holding(250, 250);
      applier.apply(1, OptionalInt.of(250));

      // then the attempt asks and does not post
      assertThat(broker0.posted.size() + broker1.posted.size()).isEqualTo(posts);
      assertThat(applier.inForce()).hasValue(250);
    }

    @Test
    void anErrorAnswerWhileALeaderLacksTheLimitGoesOnToAnotherBroker() throws Exception {
      broker0.postStatus = 500;
      broker0.holding(250, null);

      applier.apply(1, OptionalInt.of(250));

      assertThat(broker1.posted).hasSize(1);
      assertThat(applier.inForce()).hasValue(250);
    }

    @Test
    void aChangedLimitIsPostedWhateverTheBrokersHold() throws Exception {
      broker0.postStatus = 500;
      broker0.holding(250, 250);
      applier.apply(1, OptionalInt.of(250));
      broker0.postStatus = 200;

      applier.apply(1, OptionalInt.of(200));
      applier.apply(2, OptionalInt.of(200));

      assertThat(broker0.posted).hasSize(2);
      assertThat(write(broker0.posted.getLast()).path("limit").asInt()).isEqualTo(200);
      assertThat(broker1.posted).isEmpty();
    }

    @Test
    void noBrokerTakingItIsAnErrorNamingEachAndNothingIsInForce() {
      broker0.postStatus = 500;
      broker1.postStatus = 404;

      assertThatThrownBy(() -> applier.apply(1, OptionalInt.of(250)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("250 records/s").hasMessageContaining(broker0.url().toString())
          .hasMessageContaining("answered 500").hasMessageContaining("answered 404");
      assertThat(applier.inForce()).isEmpty();
    }
  }

  @Test
  void aBrokerNotListedIsReachedAtItsTopologyHostAndTheMonitoringPort() {
    BrokerMonitoring monitoring = new BrokerMonitoring(settings(List.of()), HttpClient.newHttpClient());
    ClusterView view = new ClusterView(Map.of(1, 2), Map.of(2, "zeebe-2.zeebe"), Set.of(1));

    assertThat(monitoring.url(2, view)).hasValue(URI.create("http://zeebe-2.zeebe:9600"));
    assertThat(monitoring.url(5, view)).isEmpty();
  }
}
