package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.flowcontrol.ExporterLag;

/**
 * A cluster's exporter lag, read once per tick: {@link #refresh()} reads the cluster, then {@link #read(int)} hands out
 * each partition's reading from that refresh. {@link StockClusterLag} reads a stock cluster's gateway, monitoring ports
 * and the store; the controller's tests hand in a fake of their own.
 */
public interface ClusterLag extends ExporterLag {

  /** Reads the cluster once; its partitions and leaders, as the gateway showed them (the last known on no answer). */
  ClusterView refresh();
}
