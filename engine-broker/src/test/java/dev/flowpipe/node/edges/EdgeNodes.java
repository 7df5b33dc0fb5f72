package dev.flowpipe.node.edges;

import dev.flowpipe.testsupport.NodeProcess;
import java.time.Duration;

/** What the node-process tests at the node's edges share. */
final class EdgeNodes {

  /** How long a node may take to be ready on a machine that many builds share (seen: 85 s for the store alone). */
  static final Duration READY = Duration.ofMinutes(5);

  private EdgeNodes() {}

  static int freePort() {
    // outside the kernel's ephemeral range: a port kept across a node's restart must not become an outgoing
    // connection's meanwhile
    return NodeProcess.freePort();
  }
}
