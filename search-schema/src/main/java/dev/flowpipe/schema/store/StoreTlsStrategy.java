package dev.flowpipe.schema.store;

import org.apache.hc.client5.http.ssl.ClientTlsStrategyBuilder;
import org.apache.hc.client5.http.ssl.DefaultHostnameVerifier;
import org.apache.hc.client5.http.ssl.HostnameVerificationPolicy;
import org.apache.hc.client5.http.ssl.NoopHostnameVerifier;
import org.apache.hc.core5.http.nio.ssl.TlsStrategy;

/** The Apache HTTP client's TLS for a store connection, as the store transport installs it. */
public final class StoreTlsStrategy {

  private StoreTlsStrategy() {}

  public static TlsStrategy of(StoreTls tls) {
    ClientTlsStrategyBuilder builder = ClientTlsStrategyBuilder.create().setSslContext(tls.sslContext());
    if (tls.verifyHostname()) {
      // the client's own check: left to the JDK alone (the builder's default), an IP address in the URL went unchecked
      builder.setHostnameVerifier(new DefaultHostnameVerifier())
          .setHostnameVerificationPolicy(HostnameVerificationPolicy.BOTH);
    } else {
      // the JDK's own check is skipped by the trust manager (ChainOnlyTrustManager); this skips the client's
      builder.setHostnameVerifier(NoopHostnameVerifier.INSTANCE)
          .setHostnameVerificationPolicy(HostnameVerificationPolicy.CLIENT);
    }
    return builder.build();
  }
}
