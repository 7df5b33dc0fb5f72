package dev.flowpipe.webapp.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * A page cursor: the sort values of a document, as an opaque string in standard base64 with padding, which is what
 * Camunda's v2 specification's cursor pattern accepts (a client that validates answers refuses anything else).
 * Cursors of earlier builds (URL-safe alphabet, no padding) are still read. A client hands back an answer's
 * {@code endCursor} as {@code page.after} for the next page, or its {@code startCursor} as {@code page.before} for the
 * previous one.
 */
public final class Cursor {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Cursor() {}

  public static String encode(List<Object> sortValues) {
    try {
      return Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(sortValues));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("sort values cannot be written as a cursor: " + sortValues, e);
    }
  }

  /** @throws IllegalArgumentException when the text is no cursor */
  public static List<Object> decode(String cursor) {
    try {
      byte[] text = cursor.getBytes(StandardCharsets.US_ASCII);
      byte[] json = cursor.indexOf('-') >= 0 || cursor.indexOf('_') >= 0
          ? Base64.getUrlDecoder().decode(text)
          : Base64.getDecoder().decode(text);
      return JSON.readValue(json, new TypeReference<>() {});
    } catch (IllegalArgumentException | java.io.IOException e) {
      throw new IllegalArgumentException("not a cursor of this API: " + cursor);
    }
  }
}
