package dev.flowpipe.node.config;

import dev.flowpipe.webapp.config.StoreProperties;

/**
 * The node's search store: the connection every application reads ({@code flowpipe.store.*}, the one record of ADR
 * 0018) and, without a URL, the embedded store that only the node runs ({@code flowpipe.store.embedded.*}). Built
 * once the node's settings are bound, before anything starts, so the rules that join them stop start-up with a message
 * naming the keys.
 *
 * @param connection where the store is and how to reach it
 * @param embedded the embedded store, used when {@code connection} has no URL
 */
public record NodeStore(StoreProperties connection, EmbeddedStoreProperties embedded) {

  /** The node's store, checked against the node's other settings. */
  public static NodeStore of(NodeProperties node, StoreProperties connection, EmbeddedStoreProperties embedded) {
    if (node.broker().clusterSize() > 1 && connection.isEmbedded() && !embedded.servesCluster()) {
      // each node would write its share to a store of its own, and a new leader would find no base documents
      throw new IllegalArgumentException("flowpipe.broker.cluster-size is " + node.broker().clusterSize()
          + " but flowpipe.store.url is empty, so this node would write its partitions' read model to an embedded"
          + " store of its own, which no other node reads after a failover. All nodes of a cluster write to one"
          + " store: set flowpipe.store.url to it on every node, or run it embedded in one node with"
          + " flowpipe.store.embedded.serves-cluster=true and set the others' flowpipe.store.url to that node's store");
    }
    String exporterPrefix = node.exporter().indexPrefix();
    if (connection.indexPrefix() != null && !connection.indexPrefix().equals(exporterPrefix)) {
      // the node's web app reads what its exporter writes: a second prefix would be one the node never reads
      throw new IllegalArgumentException("flowpipe.store.index-prefix is '" + connection.indexPrefix()
          + "' but the node writes and reads flowpipe.exporter.index-prefix, '" + exporterPrefix
          + "': set only flowpipe.exporter.index-prefix on a node");
    }
    // fails naming the key; the store's URL stands in for the source until the embedded store has its own
    node.importerSettings(connection.isEmbedded() ? "http://127.0.0.1:" + embedded.httpPort() : connection.url());
    return new NodeStore(connection, embedded);
  }

  public boolean isEmbedded() {
    return connection.isEmbedded();
  }
}
