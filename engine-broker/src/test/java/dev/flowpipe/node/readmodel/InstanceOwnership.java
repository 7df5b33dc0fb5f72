package dev.flowpipe.node.readmodel;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Compares the variable and job documents of a {@link TwoTaskInstances} run with what its client sent: every document
 * must carry its own instance's values. Counts the wrong documents, so a failure says how far the read model is off.
 */
final class InstanceOwnership {

  /** What was wrong: counts, and the first few differences of each kind in words. */
  record Report(int variables, int wrongVariables, int jobs, int wrongJobs, List<String> examples) {

    boolean allRight() {
      return wrongVariables == 0 && wrongJobs == 0;
    }

    @Override
    public String toString() {
      return wrongVariables + " of " + variables + " variables and " + wrongJobs + " of " + jobs
          + " jobs hold what does not belong to them" + (examples.isEmpty() ? "" : "; e.g.\n  "
          + String.join("\n  ", examples));
    }
  }

  private static final int EXAMPLES_OF_EACH_KIND = 5;

  private final SearchStore store;
  private final String variableIndex;
  private final String jobIndex;

  InstanceOwnership(SearchStore store, String indexPrefix) {
    this.store = store;
    this.variableIndex = ReadModelIndex.VARIABLE.indexName(indexPrefix);
    this.jobIndex = ReadModelIndex.JOB.indexName(indexPrefix);
  }

  Report of(TwoTaskInstances run) {
    store.refresh(variableIndex);
    store.refresh(jobIndex);
    List<String> variableExamples = new ArrayList<>();
    int variables = 0;
    int wrongVariables = 0;
    for (long instance : run.instanceKeys()) {
      Map<String, Map<String, Object>> byName = new HashMap<>();
      for (Map<String, Object> doc : store.findByField(variableIndex, "processInstanceKey", instance, 100)) {
        byName.put(String.valueOf(doc.get("name")), doc);
      }
      Map<String, String> expected = run.expectedVariables(instance);
      for (var entry : expected.entrySet()) {
        variables++;
        String difference = variableDifference(instance, entry.getValue(), byName.get(entry.getKey()));
        if (difference != null) {
          wrongVariables++;
          note(variableExamples, "instance " + instance + " variable " + entry.getKey() + ": " + difference);
        }
      }
      for (String name : byName.keySet()) {
        if (!expected.containsKey(name)) {
          wrongVariables++;
          note(variableExamples, "instance " + instance + " has a variable '" + name + "' it never had");
        }
      }
    }
    List<String> jobExamples = new ArrayList<>();
    int wrongJobs = 0;
    List<TwoTaskInstances.SentJob> jobs = run.jobs();
    for (TwoTaskInstances.SentJob job : jobs) {
      String difference = jobDifference(job, store.get(jobIndex, String.valueOf(job.key())));
      if (difference != null) {
        wrongJobs++;
        note(jobExamples, "job " + job.key() + " of instance " + job.processInstanceKey() + ": " + difference);
      }
    }
    List<String> examples = new ArrayList<>(variableExamples);
    examples.addAll(jobExamples);
    return new Report(variables, wrongVariables, jobs.size(), wrongJobs, examples);
  }

  private static String variableDifference(long instance, String expectedValue, Map<String, Object> doc) {
    if (doc == null) {
      return "missing";
    }
    if (!isLong(doc.get("scopeKey"), instance)) {
      return "scopeKey " + doc.get("scopeKey");
    }
    Object full = Boolean.TRUE.equals(doc.get("truncated")) ? doc.get("fullValue") : doc.get("value");
    if (!expectedValue.equals(full)) {
      return "value " + abbreviate(full) + ", sent " + abbreviate(expectedValue);
    }
    return null;
  }

  private static String jobDifference(TwoTaskInstances.SentJob job, Optional<Map<String, Object>> stored) {
    if (stored.isEmpty()) {
      return "missing";
    }
    Map<String, Object> doc = stored.get();
    Map<String, Object> expected = new HashMap<>();
    expected.put("processInstanceKey", job.processInstanceKey());
    expected.put("elementId", job.elementId());
    expected.put("type", TwoTaskInstances.jobType(Integer.parseInt(job.elementId().substring(1))));
    expected.put("state", "COMPLETED");
    expected.put("worker", job.worker());
    expected.put("retries", job.retries());
    expected.put("errorMessage", job.errorMessage());
    List<String> differences = new ArrayList<>();
    expected.forEach((field, value) -> {
      Object actual = doc.get(field);
      boolean same = value instanceof Number number ? isLong(actual, number.longValue()) : Objects.equals(value, actual);
      if (!same) {
        differences.add(field + " " + actual + ", expected " + value);
      }
    });
    return differences.isEmpty() ? null : String.join(", ", differences);
  }

  private static boolean isLong(Object actual, long expected) {
    return actual instanceof Number number && number.longValue() == expected;
  }

  private static String abbreviate(Object value) {
    String text = String.valueOf(value);
    return text.length() <= 40 ? text : text.substring(0, 40) + "... (" + text.length() + " chars)";
  }

  private static void note(List<String> examples, String difference) {
    if (examples.size() < EXAMPLES_OF_EACH_KIND) {
      examples.add(difference);
    }
  }
}
