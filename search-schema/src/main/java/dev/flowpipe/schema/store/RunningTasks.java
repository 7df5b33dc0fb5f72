package dev.flowpipe.schema.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code _tasks} request (OpenSearch and Elasticsearch answer it alike), and the reading of its
 * answer into the ids ({@code node:number}) of the tasks running now.
 */
public final class RunningTasks {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunningTasks() {}

  /** The path and query of the request listing the running tasks whose action matches {@code actions}. */
  public static String path(String actions) {
    return "/_tasks?group_by=none&actions=" + URLEncoder.encode(actions, StandardCharsets.UTF_8);
  }

  /**
   * Reads an answer of any status: the running tasks' ids, or empty when the store does not let this user list tasks
   * (401/403: no cluster monitor privilege).
   */
  public static Optional<Set<String>> read(String actions, int status, String answer) {
    AnswerClass kind = AnswerClass.ofAnswer(status, answer);
    if (kind == AnswerClass.REFUSED) {
      return Optional.empty();
    }
    if (kind != AnswerClass.OK) {
      throw AnswerClass.failure("listing tasks " + actions, status, answer);
    }
    try {
      Set<String> ids = new LinkedHashSet<>();
      for (JsonNode task : JSON.readTree(answer).path("tasks")) {
        ids.add(task.path("node").asText() + ":" + task.path("id").asText());
      }
      return Optional.of(ids);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("listing tasks " + actions + ": unreadable answer: " + e.getMessage(), e);
    }
  }
}
