package dev.flowpipe.systemtests;

import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.query.ApiField;
import dev.flowpipe.webapp.query.Entity;
import dev.flowpipe.webapp.query.FieldType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's web app against the store: every entity the search API serves, item by item and field by field (the
 * fields the API serves), and the client oracle applied to the read model as the web app serves it (each read once).
 * Three nodes that each pass give the same answers.
 */
public final class WebAppCheck {

  private static final int DIFFERENCES_KEPT = 100;

  /** The items of one entity: in the store, through the web app, and how they differ. */
  public record EntityCount(String entity, long store, long webApp, long missing, long extra, long different) {}

  /** One difference; {@code field} is {@link ReadModelDiff#WHOLE_DOCUMENT} for a missing, extra or repeated item. */
  public record Difference(String entity, String key, String field, String store, String webApp) {}

  /**
   * @param differences the first {@value #DIFFERENCES_KEPT}
   * @param clientMismatches the client oracle on the web app's read model
   */
  public record Result(int node, List<EntityCount> entities, long differenceCount, List<Difference> differences,
      int clientMismatchCount, List<ClientOracle.Mismatch> clientMismatches) {

    boolean passed() {
      return differenceCount == 0 && clientMismatchCount == 0;
    }
  }

  private final ClientOracle oracle;
  private final Map<Entity, Map<String, Map<String, Object>>> stored = new EnumMap<>(Entity.class);
  private final List<Difference> storeDifferences = new ArrayList<>();
  private final long[] storeDifferenceCount = {0};

  /** Reads the store's items of every entity once, for the checks of every node. */
  public WebAppCheck(SearchStore store, String prefix, ClientOracle oracle) {
    this.oracle = oracle;
    ReadModelSource source = ReadModelSource.of(store, prefix);
    for (Entity entity : Entity.values()) {
      stored.put(entity, items(entity, source, storeDifferences, storeDifferenceCount));
    }
  }

  /** The web app of node {@code node}, on {@code httpPort}, against the store and the client oracle. */
  public Result check(int node, int httpPort) {
    ReadModelSource webApp = ReadModelSource.kept(new WebAppReadModel(httpPort));
    List<EntityCount> entities = new ArrayList<>();
    List<Difference> differences = new ArrayList<>(storeDifferences);
    long[] total = {storeDifferenceCount[0]};
    for (Entity entity : Entity.values()) {
      Map<String, Map<String, Object>> expected = stored.get(entity);
      Map<String, Map<String, Object>> actual = items(entity, webApp, differences, total);
      long missing = 0;
      long different = 0;
      for (Map.Entry<String, Map<String, Object>> item : expected.entrySet()) {
        Map<String, Object> served = actual.get(item.getKey());
        if (served == null) {
          missing++;
          note(differences, total, new Difference(entity.path(), item.getKey(), ReadModelDiff.WHOLE_DOCUMENT,
              ReadModelDiff.shown(item.getValue()), ReadModelDiff.ABSENT));
        } else if (!served.equals(item.getValue())) {
          different++;
          for (ApiField field : entity.fields()) {
            Object a = item.getValue().get(field.stored());
            Object b = served.get(field.stored());
            if (!Objects.equals(a, b)) {
              note(differences, total, new Difference(entity.path(), item.getKey(), field.name(),
                  ReadModelDiff.shown(a), ReadModelDiff.shown(b)));
            }
          }
        }
      }
      List<String> extra = actual.keySet().stream().filter(key -> !expected.containsKey(key)).toList();
      extra.forEach(key -> note(differences, total, new Difference(entity.path(), key, ReadModelDiff.WHOLE_DOCUMENT,
          ReadModelDiff.ABSENT, ReadModelDiff.shown(actual.get(key)))));
      entities.add(new EntityCount(entity.path(), expected.size(), actual.size(), missing, extra.size(), different));
    }
    List<ClientOracle.Mismatch> mismatches = oracle.check(webApp).mismatches();
    return new Result(node, entities, total[0], differences, mismatches.size(),
        mismatches.subList(0, Math.min(DIFFERENCES_KEPT, mismatches.size())));
  }

  /** The items of the entity by key, only the fields the API serves, numbers compared by value. */
  private static Map<String, Map<String, Object>> items(Entity entity, ReadModelSource source,
      List<Difference> differences, long[] total) {
    Map<String, Map<String, Object>> items = new HashMap<>();
    source.forEach(entity.index(), document -> {
      Map<String, Object> item = new LinkedHashMap<>();
      for (ApiField field : entity.fields()) {
        Object value = WebAppReadModel.canonical(field, document.get(field.stored()));
        if (value != null && field.type() != FieldType.PRESENCE) {
          item.put(field.stored(), value instanceof Number n ? normalized(n) : value);
        }
      }
      String key = String.valueOf(item.get(entity.key().stored()));
      if (items.put(key, item) != null) {
        note(differences, total, new Difference(entity.path(), key, ReadModelDiff.WHOLE_DOCUMENT, "once",
            "more than once"));
      }
    });
    return items;
  }

  private static Object normalized(Number number) {
    return number instanceof Double || number instanceof Float ? (Object) number.doubleValue() : number.longValue();
  }

  private static void note(List<Difference> differences, long[] total, Difference difference) {
    total[0]++;
    if (differences.size() < DIFFERENCES_KEPT) {
      differences.add(difference);
    }
  }
}
