package dev.flowpipe.node;

import dev.flowpipe.node.broker.EmbeddedBroker;
import dev.flowpipe.node.broker.LeaderLogPositions;
import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.webapp.WebappConfiguration;
import dev.flowpipe.webapp.config.WebappProperties;
import dev.flowpipe.webapp.operations.ZeebeEngineCommands;
import dev.flowpipe.webapp.readmodel.ReadModel;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The web app (search API, operations and UI) served by the node: it reads the node's own store (no second client is
 * opened), sends the operations' commands to the node's own gateway, and knows the log positions of the partitions
 * the node leads.
 */
@Configuration(proxyBeanMethods = false)
@Import(WebappConfiguration.class)
public class NodeWebapp {

  @Bean
  ZeebeEngineCommands engineCommands(NodeProperties properties, WebappProperties webapp) {
    String host = properties.gateway().host();
    boolean wildcard = host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    return ZeebeEngineCommands.connect((wildcard ? "127.0.0.1" : host) + ":" + properties.gateway().port(),
        webapp.operations().requestTimeout());
  }

  @Bean
  LeaderLogPositions writtenPositions(EmbeddedBroker broker) {
    return new LeaderLogPositions(broker);
  }

  @Bean
  ReadModel readModel(RunningStore store, NodeProperties properties) {
    String prefix = properties.exporter().indexPrefix();
    return new ReadModel() {
      @Override
      public SearchStore store() {
        try {
          return store.client();
        } catch (IllegalStateException e) {
          throw new StoreUnavailableException(e.getMessage(), e);
        }
      }

      @Override
      public String indexPrefix() {
        return prefix;
      }
    };
  }
}
