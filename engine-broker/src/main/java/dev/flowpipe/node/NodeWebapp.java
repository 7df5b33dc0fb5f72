package dev.flowpipe.node;

import dev.flowpipe.node.config.NodeProperties;
import dev.flowpipe.node.store.RunningStore;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.webapp.WebappConfiguration;
import dev.flowpipe.webapp.readmodel.ReadModel;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/** The web app (search API and UI) served by the node, reading the node's own store: no second client is opened. */
@Configuration(proxyBeanMethods = false)
@Import(WebappConfiguration.class)
public class NodeWebapp {

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
