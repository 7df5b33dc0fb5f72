package dev.flowpipe.schema.rest;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;

/**
 * One request to the store's REST API.
 *
 * @param method the HTTP method
 * @param path the path below the store's URL, starting with {@code /}; may carry a query string of its own
 * @param parameters further query parameters, added encoded
 * @param body the body, or null for none
 * @param contentType the body's media type
 */
public record StoreRequest(String method, String path, Map<String, String> parameters, byte[] body, String contentType) {

  public static final String JSON = "application/json";
  /** Newline-delimited JSON, the body of a {@code _bulk} request. */
  public static final String NDJSON = "application/x-ndjson";

  public StoreRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("path must start with /, was " + path);
    }
    parameters = parameters == null ? Map.of() : Map.copyOf(parameters);
    contentType = contentType == null ? JSON : contentType;
  }

  /** A request without a body. */
  public static StoreRequest of(String method, String path) {
    return new StoreRequest(method, path, Map.of(), null, null);
  }

  /** A request with a JSON body, or none when {@code json} is null. */
  public static StoreRequest json(String method, String path, String json) {
    return new StoreRequest(method, path, Map.of(), json == null ? null : json.getBytes(StandardCharsets.UTF_8), JSON);
  }
}
