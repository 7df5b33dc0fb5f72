package dev.flowpipe.webapp;

import dev.flowpipe.webapp.api.ProblemHandler;
import dev.flowpipe.webapp.api.SearchController;
import dev.flowpipe.webapp.api.ElementStatistics;
import dev.flowpipe.webapp.api.ProcessStatistics;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.api.StatisticsController;
import dev.flowpipe.webapp.api.UiController;
import dev.flowpipe.webapp.config.SecurityConfiguration;
import dev.flowpipe.webapp.batch.BatchController;
import dev.flowpipe.webapp.cluster.ClusterController;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.WrittenPositions;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import dev.flowpipe.webapp.operations.OperationProblems;
import dev.flowpipe.webapp.operations.OperationsController;
import dev.flowpipe.webapp.readmodel.ReadModel;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The web app as a part of a Spring context: the search API, the operations, the UI (static resources under
 * {@code /}), security and configuration. The context must provide a {@link ReadModel}, the
 * {@link dev.flowpipe.webapp.operations.EngineCommands} and the
 * {@link dev.flowpipe.webapp.operations.WrittenPositions}: the node gives its own store, gateway and log; the
 * standalone {@link WebappApplication} a store reached by URL, a gateway by address (or none) and no positions.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(WebappProperties.class)
@Import({SearchController.class, StatisticsController.class, OperationsController.class, ClusterController.class,
    BatchController.class, UiController.class,
    ProblemHandler.class,
    OperationProblems.class, SecurityConfiguration.class})
public class WebappConfiguration {

  @Bean
  SearchService searchService(ReadModel readModel, WebappProperties properties) {
    return new SearchService(readModel, properties);
  }

  @Bean
  ElementStatistics elementStatistics(ReadModel readModel, WebappProperties properties) {
    return new ElementStatistics(readModel, properties);
  }

  @Bean
  ProcessStatistics processStatistics(ReadModel readModel, WebappProperties properties) {
    return new ProcessStatistics(readModel, properties);
  }

  @Bean
  BatchOperations batchOperations(ReadModel readModel, SearchService search, EngineCommands engine,
      WrittenPositions positions, WebappProperties properties) {
    var operations = properties.operations();
    // one thread: pages, pauses, lease renewals and the look for expired batches take turns on it
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("batch-operations").factory());
    return new BatchOperations(new BatchOperationStore(readModel), search, engine, positions, Clock.systemUTC(),
        scheduler, new SecureRandom(), new BatchOperations.Settings(operations.batchParallelism(),
            operations.batchMaxItems(), operations.batchLeaseExpiry(), Duration.ofSeconds(1)));
  }

  /** Batches a stop left active go on once the app is up (where the operations are on). */
  @Bean
  ApplicationListener<ApplicationReadyEvent> resumeBatchOperations(BatchOperations batches,
      WebappProperties properties) {
    return event -> {
      if (properties.operationsEnabled()) {
        batches.resume();
      }
    };
  }
}
