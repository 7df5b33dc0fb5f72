package dev.flowpipe.server.config;

import dev.flowpipe.settings.Secrets;
import dev.flowpipe.settings.SettingRules;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The user's Zeebe gateway, which the web app's operations and the flow controller's topology reads go through
 * ({@code flowpipe.server.gateway.*}).
 *
 * @param address the gateway's gRPC address, host:port
 * @param plaintext talk plaintext gRPC; false for TLS (with {@code ca-certificate}, or the JVM's trusted CAs)
 * @param caCertificate a PEM file of the CA that signed the gateway's certificate (TLS only)
 * @param requestTimeout the longest a command to the gateway may take
 * @param oauth OAuth client credentials, as the Zeebe client supports them (a token from the authorization server on
 *     every call); set {@code client-id} to use them
 * @param bearerToken a static token sent as {@code Authorization: Bearer <token>} (a gateway behind a proxy that checks
 *     it); exclusive with {@code oauth} and {@code username}
 * @param username with {@code password}: sent as {@code Authorization: Basic ...}; exclusive with the others
 * @param password the basic-auth password
 */
@ConfigurationProperties("flowpipe.server.gateway")
public record GatewayProperties(
    @DefaultValue("127.0.0.1:26500") String address,
    @DefaultValue("true") boolean plaintext,
    Path caCertificate,
    @DefaultValue("20s") Duration requestTimeout,
    @DefaultValue OAuth oauth,
    String bearerToken,
    String username,
    String password) {

  private static final String P = "flowpipe.server.gateway.";

  public GatewayProperties {
    if (address == null || !address.trim().matches("[^\\s:/]+:\\d{1,5}")) {
      throw new IllegalArgumentException(P + "address must be host:port, was '" + address + "'");
    }
    SettingRules.positive(P + "request-timeout", requestTimeout);
    if (caCertificate != null && plaintext) {
      throw new IllegalArgumentException(P + "ca-certificate is for TLS: set " + P + "plaintext=false, or remove it");
    }
    if (caCertificate != null && !Files.isReadable(caCertificate)) {
      throw new IllegalArgumentException(P + "ca-certificate must be a readable PEM file, was '" + caCertificate + "'");
    }
    int ways = (oauth != null && oauth.enabled() ? 1 : 0) + (present(bearerToken) ? 1 : 0) + (present(username) ? 1 : 0);
    if (ways > 1) {
      throw new IllegalArgumentException(
          P + "oauth.client-id, " + P + "bearer-token and " + P + "username exclude each other: set one");
    }
    if (present(username) != present(password)) {
      throw new IllegalArgumentException(P + "username and " + P + "password go together, only one was set");
    }
  }

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }

  /** Whether a static {@code Authorization} header is configured (bearer or basic). */
  public boolean staticAuthorization() {
    return present(bearerToken) || present(username);
  }

  @Override
  public String toString() {
    return "GatewayProperties[address=" + address + ", plaintext=" + plaintext + ", caCertificate=" + caCertificate
        + ", requestTimeout=" + requestTimeout + ", oauth=" + oauth + ", bearerToken=" + mask(bearerToken)
        + ", username=" + username + ", password=" + mask(password) + "]";
  }

  static String mask(String secret) {
    return present(secret) ? Secrets.MASK : null;
  }

  /**
   * OAuth client credentials for the gateway.
   *
   * @param clientId the client's id; empty: no OAuth
   * @param clientSecret the client's secret
   * @param authorizationServerUrl the token endpoint
   * @param audience the token's audience (Camunda's default: {@code zeebe-api})
   * @param scope the token's scope, if the authorization server wants one
   */
  public record OAuth(String clientId, String clientSecret, String authorizationServerUrl,
      @DefaultValue("zeebe-api") String audience, String scope) {

    public OAuth {
      if (present(clientId) && (!present(clientSecret) || !present(authorizationServerUrl))) {
        throw new IllegalArgumentException(P + "oauth.client-id needs " + P + "oauth.client-secret and " + P
            + "oauth.authorization-server-url, was client-secret " + mask(clientSecret)
            + ", authorization-server-url '" + authorizationServerUrl + "'");
      }
    }

    public boolean enabled() {
      return present(clientId);
    }

    @Override
    public String toString() {
      return "OAuth[clientId=" + clientId + ", clientSecret=" + mask(clientSecret) + ", authorizationServerUrl="
          + authorizationServerUrl + ", audience=" + audience + ", scope=" + scope + "]";
    }
  }
}
