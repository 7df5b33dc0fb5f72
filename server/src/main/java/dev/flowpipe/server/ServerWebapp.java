package dev.flowpipe.server;

import dev.flowpipe.server.config.FlowControllerProperties;
import dev.flowpipe.server.config.GatewayProperties;
import dev.flowpipe.server.flowcontrol.BrokerMonitoring;
import dev.flowpipe.server.flowcontrol.ClusterView;
import dev.flowpipe.server.flowcontrol.ClusterWrittenPositions;
import dev.flowpipe.server.gateway.GatewayClient;
import dev.flowpipe.server.health.GatewayHealthIndicator;
import dev.flowpipe.server.health.SearchStoreHealthIndicator;
import dev.flowpipe.webapp.WebappConfiguration;
import dev.flowpipe.webapp.config.StoreProperties;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.operations.ZeebeEngineCommands;
import dev.flowpipe.webapp.readmodel.ConnectingReadModel;
import io.camunda.zeebe.client.ZeebeClient;
import java.net.http.HttpClient;
import java.util.function.Supplier;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The web app in the server: the read model from the store of {@code flowpipe.store.*}, the operations through
 * the user's gateway ({@code flowpipe.server.gateway.*}), and read-your-writes from the partition leaders' log
 * positions on their monitoring ports.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({GatewayProperties.class, FlowControllerProperties.class})
@Import(WebappConfiguration.class)
public class ServerWebapp {

  @Bean(destroyMethod = "close")
  ConnectingReadModel readModel(StoreProperties store) {
    return new ConnectingReadModel(store.connection(), store.indexPrefixOrDefault());
  }

  @Bean(destroyMethod = "close")
  ZeebeClient gatewayClient(GatewayProperties gateway) {
    return GatewayClient.build(gateway);
  }

  /** The client's owner is its own bean: closing the commands must not close it twice. */
  @Bean(destroyMethod = "")
  ZeebeEngineCommands engineCommands(ZeebeClient gatewayClient, FlowControllerProperties flowControl) {
    // a topology read (GET /v2/topology, /v2/status) waits as long as the controller's and readiness' do
    return new ZeebeEngineCommands(gatewayClient, flowControl.requestTimeout());
  }

  @Bean
  Supplier<ClusterView> clusterTopology(ZeebeClient gatewayClient, FlowControllerProperties flowControl) {
    return () -> ClusterView.of(gatewayClient, flowControl.requestTimeout());
  }

  @Bean
  BrokerMonitoring brokerMonitoring(FlowControllerProperties flowControl) {
    return new BrokerMonitoring(flowControl,
        HttpClient.newBuilder().connectTimeout(flowControl.requestTimeout()).build());
  }

  /** Readiness: the gateway answers with a leader for every partition ({@code /actuator/health/gateway}). */
  @Bean("gateway")
  GatewayHealthIndicator gatewayHealth(Supplier<ClusterView> clusterTopology, GatewayProperties gateway) {
    return new GatewayHealthIndicator(clusterTopology, gateway.address());
  }

  /** Readiness: the store answers and holds the read model's schema ({@code /actuator/health/searchStore}). */
  @Bean("searchStore")
  SearchStoreHealthIndicator searchStoreHealth(ConnectingReadModel readModel) {
    return new SearchStoreHealthIndicator(readModel);
  }

  @Bean
  WrittenPositions writtenPositions(Supplier<ClusterView> clusterTopology, BrokerMonitoring brokerMonitoring) {
    return new ClusterWrittenPositions(clusterTopology, brokerMonitoring);
  }
}
