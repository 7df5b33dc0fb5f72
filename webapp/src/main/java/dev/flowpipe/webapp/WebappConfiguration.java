package dev.flowpipe.webapp;

import dev.flowpipe.webapp.alert.AlertConfiguration;
import dev.flowpipe.webapp.alert.AlertProperties;
import dev.flowpipe.webapp.api.CallHierarchy;
import dev.flowpipe.webapp.api.ElementStatistics;
import dev.flowpipe.webapp.api.ProblemErrorController;
import dev.flowpipe.webapp.api.ProblemHandler;
import dev.flowpipe.webapp.api.IncidentStatistics;
import dev.flowpipe.webapp.api.ProcessStatistics;
import dev.flowpipe.webapp.api.SequenceFlows;
import dev.flowpipe.webapp.api.VersionStatistics;
import dev.flowpipe.webapp.api.RequestBodyLimit;
import dev.flowpipe.webapp.api.SearchController;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.api.StatisticsController;
import dev.flowpipe.webapp.api.UiController;
import dev.flowpipe.webapp.batch.BatchController;
import dev.flowpipe.webapp.batch.BatchOperationStore;
import dev.flowpipe.webapp.batch.BatchOperations;
import dev.flowpipe.webapp.cluster.ClusterController;
import dev.flowpipe.webapp.config.SecurityConfiguration;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.config.LiveProperties;
import dev.flowpipe.webapp.config.ExportProperties;
import dev.flowpipe.webapp.config.DurationsProperties;
import dev.flowpipe.webapp.heatmap.ElementDurations;
import dev.flowpipe.webapp.heatmap.HeatmapController;
import dev.flowpipe.webapp.export.ExportController;
import dev.flowpipe.webapp.export.InstanceExport;
import dev.flowpipe.webapp.live.LiveController;
import dev.flowpipe.webapp.live.LiveMetrics;
import dev.flowpipe.webapp.live.LiveStreamsAtShutdown;
import dev.flowpipe.webapp.live.LiveUpdates;
import dev.flowpipe.webapp.config.StoreProperties;
import dev.flowpipe.webapp.consistency.ReadYourWrites;
import dev.flowpipe.webapp.audit.AuditLogController;
import dev.flowpipe.webapp.audit.StoredAuditLog;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.InstanceDeletion;
import dev.flowpipe.webapp.operations.OperationProblems;
import dev.flowpipe.webapp.operations.OperationsController;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.AsyncSupportConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The web app as a part of a Spring context: the search API, the operations, the UI (static resources under
 * {@code /}), security and configuration. The context must provide a {@link ReadModel}, the
 * {@link dev.flowpipe.webapp.operations.EngineCommands} and the
 * {@link dev.flowpipe.webapp.operations.WrittenPositions}: the node gives its own store, gateway and log; the
 * standalone {@link WebappApplication} a store reached by URL, a gateway by address (or none) and no positions.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties({WebappProperties.class, StoreProperties.class, LiveProperties.class,
    ExportProperties.class, DurationsProperties.class, AlertProperties.class})
@Import({SearchController.class, StatisticsController.class, OperationsController.class, ClusterController.class,
    BatchController.class, AuditLogController.class, UiController.class, LiveController.class, ExportController.class,
    HeatmapController.class,
    ProblemHandler.class, ProblemErrorController.class,
    OperationProblems.class, SecurityConfiguration.class, AlertConfiguration.class})
public class WebappConfiguration {

  /** The poller of the read-your-writes waits: one thread, whatever the number of waits. */
  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService consistencyPoller() {
    return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("flowpipe-consistency-poller")
        .daemon().factory());
  }

  /** Runs the searches of waits that ended, so the poller never waits for a search. */
  @Bean(destroyMethod = "shutdownNow")
  ExecutorService consistencyAnswers() {
    return Executors.newFixedThreadPool(4, Thread.ofPlatform().name("flowpipe-consistency-answer-", 0).daemon()
        .factory());
  }

  @Bean(destroyMethod = "close")
  ReadYourWrites readYourWrites(ReadModel readModel, WebappProperties properties,
      ScheduledExecutorService consistencyPoller, ExecutorService consistencyAnswers, Clock clock) {
    WebappProperties.Consistency consistency = properties.consistency();
    return new ReadYourWrites(readModel, clock, consistencyPoller, consistencyAnswers,
        consistency.pollInterval(), consistency.maxWaits());
  }

  /** The live updates' poller and keep-alive: one thread, however many pages are open. */
  @Bean(destroyMethod = "shutdownNow")
  ScheduledExecutorService livePoller() {
    return Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("flowpipe-live-poller").daemon()
        .factory());
  }

  /**
   * The live updates' writers: a thread per stream being written to, idle ones reused. Platform threads: a page that
   * stops reading blocks its writer in the servlet container's socket write, which would pin a virtual thread's
   * carrier.
   */
  @Bean(destroyMethod = "shutdownNow")
  ExecutorService liveWriters() {
    return Executors.newCachedThreadPool(Thread.ofPlatform().name("flowpipe-live-writer-", 0).daemon().factory());
  }

  @Bean(destroyMethod = "close")
  LiveUpdates liveUpdates(ReadModel readModel, LiveProperties live, ScheduledExecutorService livePoller,
      ExecutorService liveWriters, Clock clock) {
    return new LiveUpdates(readModel, livePoller, liveWriters, clock, live.pollInterval(), live.keepAlive(),
        live.streamTimeout(), live.reconnectDelay(), live.writeTimeout(), live.maxStreams(), live.refresh());
  }

  @Bean
  LiveMetrics liveMetrics(LiveUpdates liveUpdates) {
    return new LiveMetrics(liveUpdates);
  }

  @Bean
  LiveStreamsAtShutdown liveStreamsAtShutdown(LiveUpdates liveUpdates) {
    return new LiveStreamsAtShutdown(liveUpdates);
  }

  @Bean
  SearchService searchService(ReadModel readModel, WebappProperties properties, ReadYourWrites readYourWrites) {
    return new SearchService(readModel, properties, readYourWrites);
  }

  @Bean
  InstanceExport instanceExport(SearchService searchService, ExportProperties export) {
    return new InstanceExport(searchService, export.maxRows(), export.pageSize());
  }

  @Bean
  ElementDurations elementDurations(SearchService searchService, DurationsProperties durations, Clock clock) {
    return new ElementDurations(searchService, clock, durations.defaultWindow(), durations.maxSample());
  }

  @Bean
  ElementStatistics elementStatistics(ReadModel readModel, WebappProperties properties,
      ReadYourWrites readYourWrites) {
    return new ElementStatistics(readModel, properties, readYourWrites);
  }

  @Bean
  ProcessStatistics processStatistics(ReadModel readModel, WebappProperties properties,
      ReadYourWrites readYourWrites) {
    return new ProcessStatistics(readModel, properties, readYourWrites);
  }

  @Bean
  IncidentStatistics incidentStatistics(ReadModel readModel, WebappProperties properties) {
    return new IncidentStatistics(readModel, properties);
  }

  @Bean
  VersionStatistics versionStatistics(ReadModel readModel, WebappProperties properties) {
    return new VersionStatistics(readModel, properties);
  }

  @Bean
  SequenceFlows sequenceFlows(ReadModel readModel, WebappProperties properties) {
    return new SequenceFlows(readModel, properties.search().storeTimeout());
  }

  @Bean
  CallHierarchy callHierarchy(ReadModel readModel, WebappProperties properties) {
    return new CallHierarchy(readModel, properties.search().storeTimeout());
  }

  /** The body cap, before security and everything else: an oversized body is refused before it is read. */
  @Bean
  FilterRegistrationBean<RequestBodyLimit> requestBodyLimit(WebappProperties properties) {
    FilterRegistrationBean<RequestBodyLimit> registration =
        new FilterRegistrationBean<>(new RequestBodyLimit(properties.limits().maxBodySize().toBytes()));
    registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
    registration.setAsyncSupported(true);
    return registration;
  }

  /**
   * An answer that waits for read-your-writes ends by its own timeout; the servlet's async timeout lies beyond it, so
   * the wait's timed-out answer is what the client gets.
   */
  @Bean
  WebMvcConfigurer asyncAnswers(WebappProperties properties) {
    long millis = properties.consistency().maxTimeout().plus(properties.search().storeTimeout()).plusSeconds(5)
        .toMillis();
    return new WebMvcConfigurer() {
      @Override
      public void configureAsyncSupport(AsyncSupportConfigurer configurer) {
        configurer.setDefaultTimeout(millis);
      }
    };
  }

  @Bean
  StoredAuditLog auditLog(ReadModel readModel, Clock clock) {
    return new StoredAuditLog(readModel, clock, new SecureRandom());
  }

  @Bean
  InstanceDeletion instanceDeletion(ReadModel readModel, Clock clock) {
    return new InstanceDeletion(readModel, clock);
  }

  @Bean
  BatchOperations batchOperations(ReadModel readModel, SearchService search, EngineCommands engine,
      WrittenPositions positions, WebappProperties properties, Clock clock, InstanceDeletion deletion) {
    var operations = properties.operations();
    // one thread: pages, pauses, lease renewals and the look for expired batches take turns on it
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("batch-operations").factory());
    return new BatchOperations(new BatchOperationStore(readModel), search, engine, deletion, positions, clock,
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
