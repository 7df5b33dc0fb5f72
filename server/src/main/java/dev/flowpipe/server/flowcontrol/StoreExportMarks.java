package dev.flowpipe.server.flowcontrol;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Our exporter's per-partition export position marks in the store: everything up to a mark is durable. The exporter
 * writes one after each acknowledged bulk (and for records acknowledged without one), versioned by the position.
 */
public final class StoreExportMarks {

  private final ReadModel readModel;

  public StoreExportMarks(ReadModel readModel) {
    this.readModel = readModel;
  }

  /** The marked position of each of these partitions that has a mark. */
  public Map<Integer, Long> positions(Collection<Integer> partitions) {
    Map<String, Integer> ids = new HashMap<>();
    partitions.forEach(p -> ids.put(ReadModelIndex.exportPositionId(p), p));
    Map<Integer, Long> marks = new HashMap<>();
    if (ids.isEmpty()) {
      return marks;
    }
    readModel.store().getAll(readModel.index(ReadModelIndex.EXPORT_POSITION), List.copyOf(ids.keySet())).forEach(
        (id, mark) -> {
          if (mark.get("position") instanceof Number position && ids.containsKey(id)) {
            marks.put(ids.get(id), position.longValue());
          }
        });
    return marks;
  }
}
