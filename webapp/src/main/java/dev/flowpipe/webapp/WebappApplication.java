package dev.flowpipe.webapp;

import dev.flowpipe.webapp.config.StoreProperties;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.operations.EngineCommands;
import dev.flowpipe.webapp.operations.WrittenPositions;
import dev.flowpipe.webapp.operations.ZeebeEngineCommands;
import dev.flowpipe.webapp.readmodel.ConnectingReadModel;
import java.time.Clock;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * The web app on its own, reading the read model from a store given by {@code flowpipe.store.url}. Binds to
 * 127.0.0.1:8080 unless {@code server.address} / {@code server.port} say otherwise.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(WebappConfiguration.class)
public class WebappApplication {

  /** Defaults a user's configuration overrides. */
  public static final Map<String, Object> DEFAULTS =
      Map.of("server.address", "127.0.0.1", "server.port", 8080, "spring.application.name", "flowpipe-webapp",
          "spring.main.banner-mode", "off");

  /** The web app's one clock (inside the node, the node's): the waits and batches read and schedule by it. */
  @Bean
  Clock clock() {
    return Clock.systemUTC();
  }

  @Bean(destroyMethod = "close")
  ConnectingReadModel readModel(StoreProperties store) {
    return new ConnectingReadModel(store.connection(), store.indexPrefixOrDefault());
  }

  /** The gateway of {@code flowpipe.webapp.operations.gateway-address}, or none (the operations answer 501). */
  @Bean
  EngineCommands engineCommands(WebappProperties properties) {
    WebappProperties.Operations operations = properties.operations();
    if (operations.gatewayAddress() == null || operations.gatewayAddress().isBlank()) {
      return EngineCommands.NONE;
    }
    return ZeebeEngineCommands.connect(operations.gatewayAddress().trim(), operations.requestTimeout());
  }

  /** On its own the web app cannot see a broker's log: operations answer without a position to wait for. */
  @Bean
  WrittenPositions writtenPositions() {
    return WrittenPositions.NONE;
  }

  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(WebappApplication.class);
    application.setDefaultProperties(DEFAULTS);
    application.run(args);
  }
}
