package dev.flowpipe.server;

import dev.flowpipe.server.config.FlowControllerProperties;
import dev.flowpipe.server.flowcontrol.BrokerMonitoring;
import dev.flowpipe.server.flowcontrol.ClusterView;
import dev.flowpipe.server.flowcontrol.ManagementEndpointApplier;
import dev.flowpipe.server.flowcontrol.ServerFlowControlEndpoint;
import dev.flowpipe.server.flowcontrol.StockClusterFlowController;
import dev.flowpipe.server.flowcontrol.StockClusterLag;
import dev.flowpipe.server.flowcontrol.StoreExportMarks;
import dev.flowpipe.webapp.readmodel.ReadModel;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The flow controller for the user's cluster: the node's decisions on the lag read from the brokers' log positions
 * and our exporter's marks in the store, applied through the brokers' {@code POST /actuator/flowControl}. Runs also
 * when disabled, so that a static {@code write-limit} is applied and the report shows the cluster.
 */
@Configuration(proxyBeanMethods = false)
public class ServerFlowControl {

  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService flowControlScheduler() {
    return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("flow-control").daemon().factory());
  }

  @Bean
  StockClusterLag stockClusterLag(Supplier<ClusterView> clusterTopology, BrokerMonitoring brokerMonitoring,
      ReadModel readModel, Clock clock) {
    return new StockClusterLag(clusterTopology, brokerMonitoring, new StoreExportMarks(readModel), clock);
  }

  @Bean
  ManagementEndpointApplier managementEndpointApplier(BrokerMonitoring brokerMonitoring, StockClusterLag lag) {
    // the applier posts to the leaders the controller's last reading saw
    return new ManagementEndpointApplier(brokerMonitoring, lag::view);
  }

  @Bean(initMethod = "start", destroyMethod = "close")
  StockClusterFlowController stockClusterFlowController(StockClusterLag lag, ManagementEndpointApplier applier,
      FlowControllerProperties properties, ScheduledExecutorService flowControlScheduler, Clock clock,
      MeterRegistry registry) {
    return new StockClusterFlowController(lag, applier, properties.control(), clock, flowControlScheduler, registry);
  }

  @Bean
  ServerFlowControlEndpoint serverFlowControlEndpoint(StockClusterFlowController controller,
      ManagementEndpointApplier applier) {
    return new ServerFlowControlEndpoint(controller, applier);
  }
}
