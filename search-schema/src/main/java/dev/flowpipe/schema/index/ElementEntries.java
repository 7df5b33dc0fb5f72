package dev.flowpipe.schema.index;

import java.util.List;

/**
 * The element filter's terms on a process-instance document: Camunda's v2 process-instance filters {@code elementId},
 * {@code elementInstanceState} and {@code hasElementInstanceIncident} ask for one element instance of the instance
 * that meets all those given. Each element instance contributes every combination of its three values, in a fixed
 * order ({@code id=task}, {@code state=ACTIVE}, {@code inc=true}, {@code id=task|state=ACTIVE}, {@code id=task|inc=true},
 * {@code state=ACTIVE|inc=true}, {@code id=task|state=ACTIVE|inc=true}), so any such filter is a term (or a few) on one
 * keyword list, kept exact by the writer and built here for both writer and web app (ADR 15). Element ids are XML
 * names, which hold neither {@code |} nor {@code =}.
 */
public final class ElementEntries {

  /** The process-instance field holding the combinations (indexed keyword list). */
  public static final String FIELD = "elementInstanceEntries";
  /**
   * The stored list the writer keeps them exact with: the element instances per element id, state and incident flag,
   * {@code <elementId>|<state>|<incident>\0<count>}.
   */
  public static final String STORED_FIELD = "elementInstanceCounts";

  /**
   * The process-instance fields of the other filters that need other entities: the messages and the hash codes of the
   * instance's open incidents (with their stored lists of {@code <incidentKey>\0<value>}), and the keys of its jobs
   * that failed with retries left (and the flag of whether there are any).
   */
  public static final String INCIDENT_ERROR_MESSAGES = "incidentErrorMessages";
  public static final String INCIDENT_ERROR_MESSAGE_ITEMS = "incidentErrorMessageItems";
  public static final String INCIDENT_ERROR_HASH_CODES = "incidentErrorHashCodes";
  public static final String INCIDENT_ERROR_HASH_CODE_ITEMS = "incidentErrorHashCodeItems";
  public static final String RETRIES_LEFT_JOB_KEYS = "retriesLeftJobKeys";
  public static final String HAS_RETRIES_LEFT = "hasRetriesLeft";

  private ElementEntries() {}

  /** Every combination of one element instance's values, in the fixed order. */
  public static List<String> combinations(String elementId, String state, boolean incident) {
    String id = "id=" + elementId;
    String st = "state=" + state;
    String inc = "inc=" + incident;
    return List.of(id, st, inc, id + "|" + st, id + "|" + inc, st + "|" + inc, id + "|" + st + "|" + inc);
  }

  /** The term for the values a filter gives (null: not given); at least one must be given. */
  public static String term(String elementId, String state, Boolean incident) {
    StringBuilder term = new StringBuilder();
    if (elementId != null) {
      term.append("id=").append(elementId);
    }
    if (state != null) {
      term.append(term.isEmpty() ? "" : "|").append("state=").append(state);
    }
    if (incident != null) {
      term.append(term.isEmpty() ? "" : "|").append("inc=").append(incident);
    }
    if (term.isEmpty()) {
      throw new IllegalArgumentException("a term of the element filter needs an element id, a state or an incident flag");
    }
    return term.toString();
  }

}
