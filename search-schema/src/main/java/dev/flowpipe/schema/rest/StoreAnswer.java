package dev.flowpipe.schema.rest;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * The store's answer to one request, of any status.
 *
 * @param status the HTTP status
 * @param headers the headers, names in lower case (the first value of each)
 * @param body the body, empty when there was none
 */
public record StoreAnswer(int status, Map<String, String> headers, byte[] body) {

  public StoreAnswer {
    headers = headers == null ? Map.of() : Map.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }

  public String text() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** A header's value, or null. */
  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }
}
