package dev.flowpipe.node.edges;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;

/** What the node-process tests at the node's edges share. */
final class EdgeNodes {

  /** How long a node may take to be ready on a machine that many builds share (seen: 85 s for the store alone). */
  static final Duration READY = Duration.ofMinutes(5);

  private EdgeNodes() {}

  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
