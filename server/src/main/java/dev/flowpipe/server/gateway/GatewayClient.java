package dev.flowpipe.server.gateway;

import dev.flowpipe.settings.Secrets;
import dev.flowpipe.server.config.GatewayProperties;
import io.camunda.zeebe.client.CredentialsProvider;
import io.camunda.zeebe.client.ZeebeClient;
import io.camunda.zeebe.client.ZeebeClientBuilder;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Builds the official Zeebe client of the configured gateway: plaintext or TLS (with a CA file), and credentials as
 * the client supports them (OAuth client credentials, or a static {@code Authorization} header).
 */
public final class GatewayClient {

  private GatewayClient() {}

  public static ZeebeClient build(GatewayProperties gateway) {
    String scheme = gateway.plaintext() ? "http://" : "https://";
    ZeebeClientBuilder builder = ZeebeClient.newClientBuilder()
        .grpcAddress(URI.create(scheme + gateway.address().trim()))
        .defaultRequestTimeout(gateway.requestTimeout());
    if (gateway.plaintext()) {
      builder.usePlaintext();
    } else if (gateway.caCertificate() != null) {
      builder.caCertificatePath(gateway.caCertificate().toString());
    }
    CredentialsProvider credentials = credentials(gateway);
    if (credentials != null) {
      builder.credentialsProvider(credentials);
    }
    return builder.build();
  }

  /** The credentials of the settings, or null for none. */
  static CredentialsProvider credentials(GatewayProperties gateway) {
    GatewayProperties.OAuth oauth = gateway.oauth();
    if (oauth != null && oauth.enabled()) {
      var builder = CredentialsProvider.newCredentialsProviderBuilder().clientId(oauth.clientId())
          .clientSecret(oauth.clientSecret()).authorizationServerUrl(oauth.authorizationServerUrl())
          .audience(oauth.audience());
      if (oauth.scope() != null && !oauth.scope().isBlank()) {
        builder.scope(oauth.scope());
      }
      return builder.build();
    }
    if (gateway.bearerToken() != null && !gateway.bearerToken().isBlank()) {
      return new StaticAuthorization("Bearer " + gateway.bearerToken().trim());
    }
    if (gateway.username() != null && !gateway.username().isBlank()) {
      String pair = gateway.username() + ":" + gateway.password();
      return new StaticAuthorization("Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    }
    return null;
  }

  /** The same {@code Authorization} header on every call. */
  record StaticAuthorization(String header) implements CredentialsProvider {

    @Override
    public void applyCredentials(CredentialsApplier applier) {
      applier.put("Authorization", header);
    }

    @Override
    public boolean shouldRetryRequest(StatusCode statusCode) {
      return false; // a static header does not get better by asking again
    }

    @Override
    public String toString() {
      return "StaticAuthorization[" + Secrets.MASK + "]";
    }
  }
}
