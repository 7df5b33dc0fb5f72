package dev.flowpipe.testsupport.v2spec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One run of every check the spec tables give against one web app and its data, with the checks known to fail there:
 * a known difference must fail (when the product is fixed, it passes and the run says to take it off the list), any
 * other failure fails. Shared by the web app's test on written documents and client-compatibility's on a node's real
 * runs, so both run the same checks and count them the same way.
 */
public final class V2SpecRun {

  private final V2SpecChecks generator;
  private final Map<String, String> known;
  private final String listName;
  private final AtomicInteger passed = new AtomicInteger();
  private final AtomicInteger knownFailed = new AtomicInteger();
  private final AtomicInteger unexpected = new AtomicInteger();
  private final Map<String, String> failures = new TreeMap<>();

  /**
   * @param filterSamples values of the data for filters the answers do not carry, by "entity.field"
   * @param placeholders values of the data for {name} in the fixed answers' paths and bodies
   * @param known the checks that must fail here, each with why
   * @param listName where {@code known} comes from, for the message that asks to take a check off it
   */
  public V2SpecRun(V2SpecChecks.Api app, Map<String, JsonNode> filterSamples, Map<String, String> placeholders,
      Map<String, String> known, String listName) {
    this.generator = new V2SpecChecks(app, V2SpecTable.common(), filterSamples, placeholders);
    this.known = Map.copyOf(known);
    this.listName = listName;
  }

  /** Every check of every entity and fixed answer, each name unique, every known difference among them. */
  public List<V2SpecChecks.Check> checks() {
    List<V2SpecChecks.Check> checks = new ArrayList<>();
    V2SpecTable.ENTITIES.forEach(entity -> checks.addAll(generator.forEntity(V2SpecTable.load(entity))));
    V2SpecTable.answers().forEach(answer -> checks.addAll(generator.forAnswer(answer)));
    List<String> names = checks.stream().map(V2SpecChecks.Check::name).toList();
    assertThat(names).as("check names are unique").doesNotHaveDuplicates();
    assertThat(names).as("every known difference names a generated check").containsAll(known.keySet());
    return checks;
  }

  /** Runs one check: returns when it passed or failed as known, throws when it failed unexpectedly or passes now. */
  public void run(V2SpecChecks.Check check) {
    String failure;
    try {
      failure = check.run().get();
    } catch (AssertionError | RuntimeException e) {
      failure = e.toString();
    }
    if (failure == null) {
      assertThat(known).as("passes now: take '%s' off %s and the README", check.name(), listName)
          .doesNotContainKey(check.name());
      passed.incrementAndGet();
      return;
    }
    synchronized (failures) {
      failures.put(check.name(), failure);
    }
    if (known.containsKey(check.name())) {
      knownFailed.incrementAndGet();
      return;
    }
    unexpected.incrementAndGet();
    throw new AssertionError(check.name() + ": " + failure);
  }

  /** The counts and each failure with its reason, as printed at the end of a run. */
  public String summary(String data) {
    int total = passed.get() + knownFailed.get() + unexpected.get();
    StringBuilder text = new StringBuilder(String.format("v2 spec conformance on %s: %d checks run, %d passed, %d"
        + " failed (%d known differences, %d unexpected)%n", data, total, passed.get(),
        knownFailed.get() + unexpected.get(), knownFailed.get(), unexpected.get()));
    synchronized (failures) {
      failures.forEach((name, why) -> text.append("  failed: ").append(name).append(": ").append(why)
          .append(System.lineSeparator()));
    }
    return text.toString();
  }
}
