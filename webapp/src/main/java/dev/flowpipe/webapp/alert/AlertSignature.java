package dev.flowpipe.webapp.alert;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How an alert's body is signed: HMAC-SHA256, keyed with the configured secret, over {@code <timestamp>.<body>}, sent
 * as {@code sha256=<hex>} in {@link #SIGNATURE_HEADER}, with the timestamp (epoch seconds) in
 * {@link #TIMESTAMP_HEADER}. The timestamp is signed too, so a receiver that refuses old timestamps refuses a replayed
 * request; the alert id in {@link #ALERT_ID_HEADER} is the same on every attempt, for receivers that deduplicate.
 */
public final class AlertSignature {

  public static final String SIGNATURE_HEADER = "X-Flowpipe-Signature";
  public static final String TIMESTAMP_HEADER = "X-Flowpipe-Timestamp";
  public static final String ALERT_ID_HEADER = "X-Flowpipe-Alert-Id";

  private final SecretKeySpec key;

  public AlertSignature(String secret) {
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** The signature header's value for this body sent at this timestamp. */
  public String sign(long epochSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      mac.update((epochSeconds + ".").getBytes(StandardCharsets.US_ASCII));
      return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
