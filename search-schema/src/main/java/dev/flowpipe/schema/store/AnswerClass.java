package dev.flowpipe.schema.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Set;

/**
 * What a store's answer means for the caller, from its HTTP status and the store's error type: the one place that
 * sorts answers, for a bulk's items and for whole requests alike. OpenSearch and Elasticsearch answer with the same
 * statuses and error shape ({@code {"error": {"type": ..., "reason": ...}, "status": ...}}); where a store answers
 * without a JSON body (a proxy, OpenSearch's security plugin saying "Unauthorized") the status alone decides.
 */
public enum AnswerClass {
  /** 2xx: done. */
  OK,
  /** The store holds this already: a version conflict (409) or an index that exists. For a write: already applied. */
  CONFLICT,
  /** 413: the request is larger than the store takes; send less at once. */
  TOO_LARGE,
  /** 400 and other 4xx: the request or document is at fault; sending it again gives the same answer. */
  MALFORMED,
  /** 401 or 403: the credentials or the user's privileges do not allow it; an operator must act. */
  REFUSED,
  /** 429 or 5xx: the store is overloaded or failing; the same request may pass later. */
  RETRYABLE,
  /** No answer at all: the store could not be reached (refused connection, timeout, TLS). */
  UNAVAILABLE;

  private static final ObjectMapper JSON = new ObjectMapper();
  // 400 with these types means "already there", not "malformed"
  private static final Set<String> ALREADY_THERE = Set.of("resource_already_exists_exception",
      "version_conflict_engine_exception");

  /**
   * @param status the HTTP status of the answer or of a bulk item; 0 or less for no answer
   * @param errorType the store's {@code error.type}, or null when there is none
   */
  public static AnswerClass of(int status, String errorType) {
    if (status <= 0) {
      return UNAVAILABLE;
    }
    if (status == 409 || (errorType != null && ALREADY_THERE.contains(errorType))) {
      return CONFLICT;
    }
    if (status / 100 == 2) {
      return OK;
    }
    if (status == 413) {
      return TOO_LARGE;
    }
    if (status == 401 || status == 403) {
      return REFUSED;
    }
    if (status == 429 || status >= 500) {
      return RETRYABLE;
    }
    return MALFORMED;
  }

  /** The class of a whole answer, reading the error type from its body where it has one. */
  public static AnswerClass ofAnswer(int status, String body) {
    return of(status, status / 100 == 2 ? null : errorType(body));
  }

  /**
   * The error type of an answer's body ({@code error.type}, or the error itself where a store gives it as text), or
   * null when the body is not a store error.
   */
  public static String errorType(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      JsonNode error = JSON.readTree(body).path("error");
      if (error.isTextual()) {
        return error.asText();
      }
      return error.path("type").isTextual() ? error.path("type").asText() : null;
    } catch (IOException e) {
      return null; // plain text or HTML from something in front of the store
    }
  }

  /** The error type of a bulk item's error as {@link BulkOutcome.Collector#item} records it ("type: reason"). */
  static String itemErrorType(String error) {
    if (error == null) {
      return null;
    }
    int colon = error.indexOf(':');
    return colon < 0 ? error : error.substring(0, colon);
  }

  /** Whether the same request may pass later without anyone changing it. */
  public boolean retryable() {
    return this == RETRYABLE || this == UNAVAILABLE;
  }

  /**
   * The exception for a whole request the store did not take: too large as {@link RequestTooLargeException}, a store
   * in trouble as {@link StoreUnavailableException} (what the exporter's retry and circuit breaker count), any other
   * client error as {@link StoreRefusedException} (nothing applied; the same request fails until someone changes the
   * store or the request), anything else as {@link IllegalStateException}. Each names what was asked, the status and the store's answer.
   *
   * @param what what the request was for, e.g. "bulk of 12"
   */
  public static RuntimeException failure(String what, int status, String body) {
    return switch (ofAnswer(status, body)) {
      case TOO_LARGE -> new RequestTooLargeException(what + " refused as too large (HTTP 413)", null);
      case RETRYABLE, UNAVAILABLE ->
          new StoreUnavailableException(what + " failed with HTTP " + status + ": " + body);
      case REFUSED -> new StoreRefusedException(what + " refused with HTTP " + status
          + " (the store's user lacks the credentials or the privilege for it, or a block forbids it): " + body,
          status, null);
      case MALFORMED -> new StoreRefusedException(what + " refused with HTTP " + status + ": " + body, status, null);
      case OK, CONFLICT -> new IllegalStateException(what + " failed with HTTP " + status + ": " + body);
    };
  }
}
