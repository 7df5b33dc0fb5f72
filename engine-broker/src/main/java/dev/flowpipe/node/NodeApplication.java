package dev.flowpipe.node;

import java.time.Clock;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The node: Zeebe broker and gateway, the exporter inside it, and the search store it writes to. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class NodeApplication {

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(NodeApplication.class);
    ShutdownWatchdog watchdog = ShutdownWatchdog.install(application, Thread.currentThread(), Clock.systemUTC());
    try {
      application.run(args);
    } catch (RuntimeException e) {
      if (!watchdog.stopRequested()) {
        throw e;
      }
      LoggerFactory.getLogger(NodeApplication.class).info("start-up cancelled by the stop signal: {}", e.toString());
    } finally {
      watchdog.startEnded();
    }
  }
}
