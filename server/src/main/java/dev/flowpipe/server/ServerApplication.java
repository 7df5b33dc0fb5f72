package dev.flowpipe.server;

import java.time.Clock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The flowpipe server, beside a user's own Zeebe cluster: the web app and its operations through the cluster's
 * gateway ({@link ServerWebapp}), the importer when enabled ({@link ServerImporter}) and the flow controller that
 * throttles the brokers through their management endpoint ({@link ServerFlowControl}). No broker runs inside.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import({ServerWebapp.class, ServerImporter.class, ServerFlowControl.class})
public class ServerApplication {

  /** The one clock of the server: the web app's waits and batches and the flow controller take it. */
  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  public static void main(String[] args) {
    SpringApplication.run(ServerApplication.class, args);
  }
}
