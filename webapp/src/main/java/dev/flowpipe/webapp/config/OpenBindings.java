package dev.flowpipe.webapp.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.core.env.Environment;

/**
 * The warnings for ports that bind beyond loopback without authentication: the HTTP port ({@code server.address})
 * without {@code flowpipe.webapp.security.basic-auth}, and, inside the node, the gRPC gateway
 * ({@code flowpipe.gateway.host}), which has no authentication at all.
 */
final class OpenBindings {

  private OpenBindings() {}

  static List<String> warnings(Environment environment, boolean basicAuth) {
    List<String> warnings = new ArrayList<>();
    String http = environment.getProperty("server.address");
    if (!basicAuth && !loopback(http)) {
      warnings.add("the HTTP port " + environment.getProperty("server.port", "8080") + " binds to "
          + (http == null || http.isBlank() ? "every interface (server.address unset)" : http + " (server.address)")
          + " without authentication: anyone who reaches it reads every process's data; set"
          + " flowpipe.webapp.security.basic-auth=true with users, or server.address=127.0.0.1");
    }
    String gateway = environment.getProperty("flowpipe.gateway.host");
    if (gateway != null && !loopback(gateway)) {
      warnings.add("the gRPC gateway binds to " + gateway + ":" + environment.getProperty("flowpipe.gateway.port", "")
          + " (flowpipe.gateway.host), and it has no authentication in this node: anyone who reaches it can deploy"
          + " and run any process; set flowpipe.gateway.host=127.0.0.1, or put a firewall or a TLS proxy that checks"
          + " client certificates in front of it");
    }
    return warnings;
  }

  /** Whether a bind address is a loopback address (unset or unresolvable: no, it binds wider or cannot be told). */
  static boolean loopback(String address) {
    if (address == null || address.isBlank()) {
      return false;
    }
    String host = address.trim();
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
