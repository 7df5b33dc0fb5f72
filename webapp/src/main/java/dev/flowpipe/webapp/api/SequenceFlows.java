package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchTimedOutException;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sequence flows a process instance took, in the shape of Camunda's v2 {@code getProcessInstanceSequenceFlows}:
 * each flow once, however often the instance took it. Read page by page in the store until the last, so a large
 * diagram is never cut.
 */
public final class SequenceFlows {

  private static final int PAGE = 1_000;

  private final ReadModel readModel;
  private final Duration storeTimeout;

  public SequenceFlows(ReadModel readModel, Duration storeTimeout) {
    this.readModel = readModel;
    this.storeTimeout = storeTimeout;
  }

  /** The flows of the instance, ordered by flow id; none for an instance the read model does not hold. */
  public List<Map<String, Object>> ofProcessInstance(String processInstanceKey) {
    long key = key(processInstanceKey);
    List<Map<String, Object>> items = new ArrayList<>();
    List<Object> after = null;
    while (true) {
      SearchHits page;
      try {
        page = readModel.store().search(new SearchQuery(List.of(readModel.index(ReadModelIndex.SEQUENCE_FLOW)),
            List.of(new Criterion.Equals("processInstanceKey", key)), List.of(SortField.ascending("sequenceFlowId")),
            0, PAGE, after, List.of(), storeTimeout));
      } catch (SearchTimedOutException e) {
        throw SearchService.timedOut(storeTimeout);
      }
      page.hits().forEach(hit -> items.add(item(hit.source())));
      if (page.hits().size() < PAGE) {
        return items;
      }
      after = page.hits().getLast().sortValues();
    }
  }

  private static Map<String, Object> item(Map<String, Object> source) {
    Map<String, Object> item = new LinkedHashMap<>();
    item.put("sequenceFlowId", source.get("sequenceFlowId"));
    item.put("processInstanceKey", String.valueOf(source.get("processInstanceKey")));
    // the writer derives it (8.9 field); null on flows written before it did
    Object root = source.get("rootProcessInstanceKey");
    item.put("rootProcessInstanceKey", root == null ? null : String.valueOf(root));
    item.put("processDefinitionKey", String.valueOf(source.get("processDefinitionKey")));
    item.put("processDefinitionId", source.get("bpmnProcessId"));
    item.put("elementId", source.get("elementId"));
    item.put("tenantId", source.get("tenantId"));
    return item;
  }

  private static long key(String text) {
    if (text == null || !text.matches("\\d{1,19}")) {
      throw new BadRequestException("processInstanceKey", "expected a key (digits), was '" + text + "'");
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new BadRequestException("processInstanceKey", "expected a key (digits), was '" + text + "'");
    }
  }
}
