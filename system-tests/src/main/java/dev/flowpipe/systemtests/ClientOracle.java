package dev.flowpipe.systemtests;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.testsupport.CommandOutcome;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the crash suite's clients know, from the node's answers alone and independent of any exporter: the process
 * instances whose keys they got and what became of them, the values they wrote to variables, the incidents they raised
 * by failing a job with no retries left, and the ones they resolved. A command that got no answer (the node was being
 * killed) may or may not have been applied, so each fact allows what the answers allow and no more: an instance
 * whose cancellation was confirmed must be CANCELED, one whose last job's completion was confirmed COMPLETED (or
 * CANCELED if a cancellation without an answer was also sent), and one with neither still ACTIVE. {@link #check}
 * compares that with the node's read model.
 */
public final class ClientOracle {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How a command ended, as far as the client can tell. */
  public enum Outcome {
    /** The node answered that it applied the command. */
    CONFIRMED,
    /** The node answered that it did not apply it (not found, invalid state, backpressure). */
    REFUSED,
    /** No answer (connection lost, node gone, timeout): applied or not. */
    UNKNOWN;

    static Outcome of(Throwable error) {
      if (error == null) {
        return CONFIRMED;
      }
      Status.Code code = CommandOutcome.statusCode(error);
      return code == Status.Code.NOT_FOUND || code == Status.Code.FAILED_PRECONDITION
          || code == Status.Code.INVALID_ARGUMENT || code == Status.Code.ALREADY_EXISTS
          || code == Status.Code.RESOURCE_EXHAUSTED ? REFUSED : UNKNOWN;
    }
  }

  /** One thing the read model does not show as the clients know it. */
  public record Mismatch(String what, String key, String expected, String actual) {}

  /** What {@link #check} looked at and what it found. */
  public record Verdict(int instances, int instancesWithOneAllowedState, int variables, int incidents,
      List<Mismatch> mismatches) {}

  private final Map<Long, Instance> instances = new ConcurrentHashMap<>();
  private final Map<String, Long> instanceByOrderId = new ConcurrentHashMap<>();
  private final Map<VariableId, List<Write>> variables = new ConcurrentHashMap<>();
  private final Map<Long, Incident> incidents = new ConcurrentHashMap<>();
  private final Map<String, Map<String, Long>> commands = new ConcurrentHashMap<>();
  private final Map<String, Long> errors = new ConcurrentHashMap<>();

  private static final class Instance {
    final long key;
    final String processId;
    final String orderId;
    Outcome cancel;
    boolean cancelUnanswered;
    Outcome lastJob;

    Instance(long key, String processId, String orderId) {
      this.key = key;
      this.processId = processId;
      this.orderId = orderId;
    }
  }

  private record VariableId(long scopeKey, String name) {}

  /** A write of a value; one with no answer may have been applied at any time after it was sent. */
  private record Write(String json, long sentNanos, long answeredNanos, Outcome outcome) {}

  private static final class Incident {
    final long jobKey;
    final long instanceKey;
    final String message;
    final boolean staysOpen;
    Long incidentKey;
    Outcome resolve;
    boolean resolveUnanswered;
    boolean givenUp;
    final long raisedNanos = System.nanoTime();

    Incident(long jobKey, long instanceKey, String message, boolean staysOpen) {
      this.jobKey = jobKey;
      this.instanceKey = instanceKey;
      this.message = message;
      this.staysOpen = staysOpen;
    }
  }

  /** How a command of this kind ended, given the error the client handed back (null: none); counted for the report. */
  public Outcome answered(String kind, Throwable error) {
    Outcome outcome = Outcome.of(error);
    commands.computeIfAbsent(kind, k -> new ConcurrentHashMap<>()).merge(outcome.name(), 1L, Long::sum);
    if (error != null) {
      errors.merge(kind + " " + CommandOutcome.kind(error), 1L, Long::sum);
    }
    return outcome;
  }

  /**
   * As {@link #answered(String, Throwable)}, for a command sent another way than the gRPC client (e.g. an HTTP API):
   * its outcome as the caller read it, and {@code error} a short name of what went wrong (null: nothing).
   */
  public Outcome answered(String kind, Outcome outcome, String error) {
    commands.computeIfAbsent(kind, k -> new ConcurrentHashMap<>()).merge(outcome.name(), 1L, Long::sum);
    if (error != null) {
      errors.merge(kind + " " + error, 1L, Long::sum);
    }
    return outcome;
  }

  /** The node confirmed the creation of an instance, with the client's order id in its variables. */
  public void created(long key, String processId, String orderId) {
    instances.put(key, new Instance(key, processId, orderId));
    instanceByOrderId.put(orderId, key);
  }

  /** A worker met an instance the engine created (a called one), whose parent carried {@code parentOrderId}. */
  public void calledInstanceSeen(long key, String processId, String parentOrderId) {
    instances.computeIfAbsent(key, k -> new Instance(k, processId, parentOrderId));
  }

  public boolean known(long key) {
    return instances.containsKey(key);
  }

  public synchronized void cancelled(long key, Outcome outcome) {
    Instance instance = instances.get(key);
    if (instance.cancel != Outcome.CONFIRMED) {
      instance.cancel = outcome;
    }
    instance.cancelUnanswered |= outcome == Outcome.UNKNOWN;
  }

  /** The completion of the instance's last job (after which it ends) was answered so. */
  public synchronized void lastJobCompleted(long key, Outcome outcome) {
    Instance instance = instances.get(key);
    if (instance != null && instance.lastJob != Outcome.CONFIRMED) {
      instance.lastJob = outcome;
    }
  }

  public void variableWritten(long scopeKey, String name, Object value, long sentNanos, Outcome outcome) {
    String json;
    try {
      json = JSON.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
    variables.computeIfAbsent(new VariableId(scopeKey, name), v -> java.util.Collections.synchronizedList(
        new ArrayList<>())).add(new Write(json, sentNanos, System.nanoTime(), outcome));
  }

  /** A job failed with no retries left, confirmed: the engine raised an incident for it. */
  public void incidentRaised(long jobKey, long instanceKey, String message, boolean staysOpen) {
    incidents.put(jobKey, new Incident(jobKey, instanceKey, message, staysOpen));
  }

  /** Job keys of the incidents to resolve now: raised at least {@code minAgeNanos} ago, not to stay open. */
  public synchronized List<Long> incidentsToResolve(long minAgeNanos) {
    long now = System.nanoTime();
    return incidents.values().stream()
        .filter(i -> !i.staysOpen && !i.givenUp && i.resolve != Outcome.CONFIRMED && now - i.raisedNanos >= minAgeNanos)
        .map(i -> i.jobKey).toList();
  }

  public synchronized void resolved(long jobKey, long incidentKey, Outcome outcome) {
    Incident incident = incidents.get(jobKey);
    incident.incidentKey = incidentKey;
    if (incident.resolve != Outcome.CONFIRMED) {
      incident.resolve = outcome;
    }
    incident.resolveUnanswered |= outcome == Outcome.UNKNOWN;
    incident.givenUp |= outcome == Outcome.REFUSED;
  }

  /** The job of the incident is gone (its instance was cancelled): nothing to resolve. */
  public synchronized void giveUpResolving(long jobKey) {
    incidents.get(jobKey).givenUp = true;
  }

  private Map<String, Map<String, Long>> commands() {
    Map<String, Map<String, Long>> copy = new TreeMap<>();
    commands.forEach((kind, outcomes) -> copy.put(kind, new TreeMap<>(outcomes)));
    return copy;
  }

  /**
   * What the clients did and know, for the report ({@code load} in {@code results/crash.json}).
   *
   * @param commandsHeldBack commands the load did not send because too many were in flight
   * @param rates the load's rates
   */
  public record Summary(int instancesKnown, Map<String, Long> instancesByProcess, long cancellationsConfirmed,
      long lastJobsCompletedConfirmed, int variablesWritten, long variableWritesConfirmed, int incidentsRaised,
      long incidentsResolvedConfirmed, long incidentsLeftOpenOnPurpose, Map<String, Map<String, Long>> commands,
      Map<String, Long> errors, long commandsHeldBack, CrashLoad.Rates rates) {}

  /** Counts for the report, with what the load held back and its rates. */
  public synchronized Summary summary(long commandsHeldBack, CrashLoad.Rates rates) {
    Map<String, Long> byProcess = new TreeMap<>();
    instances.values().forEach(i -> byProcess.merge(i.processId, 1L, Long::sum));
    long variableWritesConfirmed = variables.values().stream().mapToLong(writes -> {
      synchronized (writes) {
        return writes.stream().filter(w -> w.outcome == Outcome.CONFIRMED).count();
      }
    }).sum();
    return new Summary(instances.size(), byProcess,
        instances.values().stream().filter(i -> i.cancel == Outcome.CONFIRMED).count(),
        instances.values().stream().filter(i -> i.lastJob == Outcome.CONFIRMED).count(), variables.size(),
        variableWritesConfirmed, incidents.size(),
        incidents.values().stream().filter(i -> i.resolve == Outcome.CONFIRMED).count(),
        incidents.values().stream().filter(i -> i.staysOpen).count(), commands(), new TreeMap<>(errors),
        commandsHeldBack, rates);
  }

  /**
   * Compares what the clients know with the read model as {@code source} shows it (the store, or a node's web app);
   * call once the clients have stopped.
   */
  public synchronized Verdict check(ReadModelSource source) {
    List<Mismatch> mismatches = new ArrayList<>();
    int definite = checkInstances(source, mismatches);
    checkVariables(source, mismatches);
    checkIncidents(source, mismatches);
    return new Verdict(instances.size(), definite, variables.size(), incidents.size(), mismatches);
  }

  private int checkInstances(ReadModelSource source, List<Mismatch> mismatches) {
    Map<Long, Map<String, Object>> found = new HashMap<>();
    source.forEach(ReadModelIndex.PROCESS_INSTANCE, doc -> {
      if (doc.get("key") instanceof Number key && instances.containsKey(key.longValue())) {
        found.put(key.longValue(), doc);
      }
    });
    int definite = 0;
    for (Instance instance : instances.values()) {
      Set<String> allowed = allowedStates(instance);
      definite += allowed.size() == 1 ? 1 : 0;
      Map<String, Object> document = found.get(instance.key);
      if (document == null) {
        mismatches.add(new Mismatch("process instance", Long.toString(instance.key), "one of " + allowed, "absent"));
        continue;
      }
      if (!allowed.contains(String.valueOf(document.get("state")))) {
        mismatches.add(new Mismatch("process instance state", Long.toString(instance.key), "one of " + allowed,
            String.valueOf(document.get("state"))));
      }
      if (!instance.processId.equals(document.get("bpmnProcessId"))) {
        mismatches.add(new Mismatch("process instance bpmnProcessId", Long.toString(instance.key),
            instance.processId, String.valueOf(document.get("bpmnProcessId"))));
      }
    }
    return definite;
  }

  private Set<String> allowedStates(Instance instance) {
    if (instance.cancel == Outcome.CONFIRMED) {
      return Set.of("CANCELED");
    }
    Set<String> allowed = new java.util.TreeSet<>();
    // a cancellation that got no answer may have been applied; one refused means the instance had already ended
    boolean maybeCancelled = instance.cancelUnanswered || parentMaybeCancelled(instance);
    if (instance.lastJob == Outcome.CONFIRMED) {
      allowed.add("COMPLETED");
    } else {
      allowed.add("ACTIVE");
      if (instance.lastJob == Outcome.UNKNOWN || instance.cancel == Outcome.REFUSED) {
        allowed.add("COMPLETED");
      }
    }
    if (maybeCancelled) {
      allowed.add("CANCELED");
    }
    return allowed;
  }

  /** A called instance ends CANCELED when its parent is cancelled; unknown parents may have been. */
  private boolean parentMaybeCancelled(Instance instance) {
    Long parentKey = instanceByOrderId.get(instance.orderId);
    if (parentKey == null) {
      return true;
    }
    if (parentKey == instance.key) {
      return false; // a root instance
    }
    Instance parent = instances.get(parentKey);
    return parent.cancel != null && parent.cancel != Outcome.REFUSED || parent.cancelUnanswered;
  }

  private void checkVariables(ReadModelSource source, List<Mismatch> mismatches) {
    Map<VariableId, String> found = new HashMap<>();
    source.forEach(ReadModelIndex.VARIABLE, doc -> {
      if (!(doc.get("scopeKey") instanceof Number scope) || !(doc.get("name") instanceof String name)) {
        return;
      }
      VariableId id = new VariableId(scope.longValue(), name);
      if (variables.containsKey(id)) {
        String value = Boolean.TRUE.equals(doc.get("truncated")) ? (String) doc.get("fullValue")
            : (String) doc.get("value");
        if (found.put(id, value) != null) {
          mismatches.add(new Mismatch("variable", id.toString(), "one document", "more than one"));
        }
      }
    });
    variables.forEach((id, writes) -> {
      Set<String> allowed;
      boolean mayBeAbsent;
      synchronized (writes) {
        allowed = allowedValues(writes);
        mayBeAbsent = writes.stream().noneMatch(w -> w.outcome == Outcome.CONFIRMED);
      }
      String value = found.get(id);
      if (value == null ? !mayBeAbsent : !allowed.contains(value)) {
        mismatches.add(new Mismatch("variable value", "scope " + id.scopeKey() + " name " + id.name(),
            (mayBeAbsent ? "absent or " : "") + "one of " + allowed.stream().map(ReadModelDiff::shown).toList(),
            value == null ? "absent" : ReadModelDiff.shown(value)));
      }
    });
  }

  /**
   * The values the variable may hold: those of writes that were or may have been applied and that no confirmed
   * write certainly came after (one sent after the earlier write's answer).
   */
  private static Set<String> allowedValues(List<Write> writes) {
    Set<String> allowed = new java.util.LinkedHashSet<>();
    for (Write write : writes) {
      if (write.outcome == Outcome.REFUSED) {
        continue;
      }
      boolean overwritten = write.outcome == Outcome.CONFIRMED && writes.stream().anyMatch(
          later -> later.outcome == Outcome.CONFIRMED && later.sentNanos > write.answeredNanos);
      if (!overwritten) {
        allowed.add(write.json);
      }
    }
    return allowed;
  }

  private void checkIncidents(ReadModelSource source, List<Mismatch> mismatches) {
    Map<Long, List<Map<String, Object>>> byJob = new HashMap<>();
    source.forEach(ReadModelIndex.INCIDENT, doc -> {
      if (doc.get("jobKey") instanceof Number job && incidents.containsKey(job.longValue())) {
        byJob.computeIfAbsent(job.longValue(), j -> new ArrayList<>()).add(doc);
      }
    });
    for (Incident incident : incidents.values()) {
      List<Map<String, Object>> found = byJob.getOrDefault(incident.jobKey, List.of());
      String job = "job " + incident.jobKey;
      if (found.size() != 1) {
        mismatches.add(new Mismatch("incident", job, "one incident", found.size() + " incidents"));
        continue;
      }
      Map<String, Object> doc = found.getFirst();
      Set<String> allowed = allowedIncidentStates(incident);
      if (!allowed.contains(String.valueOf(doc.get("state")))) {
        mismatches.add(new Mismatch("incident state", job, "one of " + allowed, String.valueOf(doc.get("state"))));
      }
      expectField(mismatches, job, doc, "processInstanceKey", incident.instanceKey);
      expectField(mismatches, job, doc, "errorType", "JOB_NO_RETRIES");
      expectField(mismatches, job, doc, "errorMessage", incident.message);
      if (incident.incidentKey != null) {
        expectField(mismatches, job, doc, "key", incident.incidentKey);
      }
    }
  }

  private Set<String> allowedIncidentStates(Incident incident) {
    // an instance whose creation got no answer is unknown to the clients, so they never cancelled it
    Instance instance = instances.get(incident.instanceKey);
    if (incident.resolve == Outcome.CONFIRMED || instance != null && instance.cancel == Outcome.CONFIRMED) {
      return Set.of("RESOLVED"); // cancelling an instance resolves its incidents
    }
    if (incident.resolveUnanswered || incident.resolve == Outcome.REFUSED
        || instance != null && (instance.cancelUnanswered || instance.cancel == Outcome.REFUSED)) {
      return Set.of("ACTIVE", "RESOLVED");
    }
    return Set.of("ACTIVE");
  }

  private static void expectField(List<Mismatch> mismatches, String what, Map<String, Object> doc, String field,
      Object expected) {
    Object actual = doc.get(field);
    boolean same = expected instanceof Long number ? actual instanceof Number n && n.longValue() == number
        : expected.equals(actual);
    if (!same) {
      mismatches.add(new Mismatch("incident " + field, what, String.valueOf(expected), String.valueOf(actual)));
    }
  }
}
