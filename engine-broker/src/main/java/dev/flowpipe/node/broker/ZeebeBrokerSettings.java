package dev.flowpipe.node.broker;

import io.camunda.zeebe.broker.system.configuration.BrokerCfg;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;

/**
 * Any Zeebe broker setting, under Zeebe's own names ({@code zeebe.broker.*}, as in a stock broker's
 * {@code application.yaml}: gateway TLS and authentication, disk watermarks, snapshot period, backpressure...), bound
 * onto the broker's configuration before the node's own keys are applied. Where both name one setting, the node's key
 * decides ({@link #OWNED}); {@link #overridden} says which Zeebe keys were given anyway, so the node can warn.
 */
public final class ZeebeBrokerSettings {

  static final String PREFIX = "zeebe.broker";

  /** Zeebe's keys the node sets from its own, with the node's key that decides each. */
  static final List<String[]> OWNED = List.of(
      new String[] {"cluster.node-id", "flowpipe.broker.node-id"},
      new String[] {"cluster.partitions-count", "flowpipe.broker.partitions-count"},
      new String[] {"cluster.replication-factor", "flowpipe.broker.replication-factor"},
      new String[] {"cluster.cluster-size", "flowpipe.broker.cluster-size"},
      new String[] {"cluster.cluster-name", "flowpipe.broker.cluster-name"},
      new String[] {"cluster.initial-contact-points", "flowpipe.broker.contact-points"},
      new String[] {"network.host", "flowpipe.broker.host"},
      new String[] {"network.advertised-host", "flowpipe.broker.advertised-host"},
      new String[] {"network.command-api.port", "flowpipe.broker.command-port"},
      new String[] {"network.command-api.advertised-port", "flowpipe.broker.advertised-command-port"},
      new String[] {"network.internal-api.port", "flowpipe.broker.internal-port"},
      new String[] {"network.internal-api.advertised-port", "flowpipe.broker.advertised-internal-port"},
      new String[] {"threads.cpu-thread-count", "flowpipe.broker.cpu-threads"},
      new String[] {"threads.io-thread-count", "flowpipe.broker.io-threads"},
      new String[] {"data.directory", "flowpipe.data-directory"},
      new String[] {"gateway.enable", "(always on in the node)"},
      new String[] {"gateway.network.host", "flowpipe.gateway.host"},
      new String[] {"gateway.network.port", "flowpipe.gateway.port"});

  private ZeebeBrokerSettings() {}

  /** A broker configuration with every {@code zeebe.broker.*} setting the binder holds. */
  public static BrokerCfg bind(Binder binder) {
    BrokerCfg cfg = new BrokerCfg();
    binder.bind(PREFIX, Bindable.ofInstance(cfg));
    return cfg;
  }

  /** "zeebe key (decided by node key)" for each Zeebe key given that the node's own key decides. */
  public static List<String> overridden(Binder binder) {
    return OWNED.stream().filter(owned -> binder.bind(PREFIX + "." + owned[0], Bindable.of(String.class)).isBound())
        .map(owned -> PREFIX + "." + owned[0] + " (decided by " + owned[1] + ")").toList();
  }
}
