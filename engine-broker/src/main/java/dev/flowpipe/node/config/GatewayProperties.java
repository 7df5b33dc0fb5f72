package dev.flowpipe.node.config;

import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The gRPC gateway inside the broker ({@code flowpipe.gateway.*}); the official Zeebe clients connect here.
 *
 * @param host address to bind
 * @param port port to bind (26500, the Zeebe default, so existing clients just work)
 */
public record GatewayProperties(@DefaultValue("127.0.0.1") String host, @DefaultValue("26500") int port) {

  public GatewayProperties {
    Check.notBlank("flowpipe.gateway.host", host);
    Check.port("flowpipe.gateway.port", port, false);
  }
}
