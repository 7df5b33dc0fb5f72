package dev.flowpipe.node;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The node: Zeebe broker and gateway, the exporter inside it, and the search store it writes to. */
@SpringBootApplication
@ConfigurationPropertiesScan
public class NodeApplication {

  public static void main(String[] args) {
    SpringApplication.run(NodeApplication.class, args);
  }
}
