package dev.flowpipe.webapp.api;

import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.GroupCountQuery;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.QueryRejectedException;
import dev.flowpipe.schema.store.SearchTimedOutException;
import dev.flowpipe.webapp.query.BadRequestException;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the statistics read from the store: every group of a {@link GroupCountQuery}, page after page until the
 * store says there are no more (nothing cut at a fixed size), and the process definitions of some keys for their
 * ids, names and versions.
 */
final class GroupedCounts {

  /** Groups per store request. */
  static final int PAGE = 1_000;

  private final ReadModel readModel;
  private final Duration storeTimeout;

  GroupedCounts(ReadModel readModel, Duration storeTimeout) {
    this.readModel = readModel;
    this.storeTimeout = storeTimeout;
  }

  /** Every group of the query, in key order, each with any one document's {@code sampleFields}. */
  List<GroupCountQuery.Group> all(ReadModelIndex entity, List<Criterion> criteria, List<String> groupBy,
      Map<String, List<Criterion>> conditions, List<String> sampleFields) {
    return all(entity, criteria, groupBy, conditions, sampleFields, List.of());
  }

  /** Every group of the query, in key order, each with the {@code sampleFields} of its first document by an order. */
  List<GroupCountQuery.Group> all(ReadModelIndex entity, List<Criterion> criteria, List<String> groupBy,
      Map<String, List<Criterion>> conditions, List<String> sampleFields, List<SortField> sampleOrder) {
    GroupCountQuery query = new GroupCountQuery(List.of(readModel.index(entity)), criteria, groupBy, PAGE, null,
        conditions, sampleFields, sampleOrder, storeTimeout);
    List<GroupCountQuery.Group> groups = new ArrayList<>();
    while (true) {
      GroupCountQuery.GroupCounts page;
      try {
        page = readModel.store().countGroups(query);
      } catch (SearchTimedOutException e) {
        throw SearchService.timedOut(storeTimeout);
      } catch (QueryRejectedException e) {
        throw new BadRequestException("body", "the store cannot run this count: " + e.getMessage());
      }
      groups.addAll(page.groups());
      if (page.afterKey() == null) {
        return groups;
      }
      query = query.after(page.afterKey());
    }
  }

  /** The process definitions of these keys, by key (those the read model holds). */
  Map<Long, Map<String, Object>> definitions(List<Long> keys) {
    Map<Long, Map<String, Object>> byKey = new HashMap<>();
    for (int start = 0; start < keys.size(); start += PAGE) {
      List<Object> chunk = List.copyOf(keys.subList(start, Math.min(start + PAGE, keys.size())));
      SearchHits hits = readModel.store().search(new SearchQuery(
          List.of(readModel.index(ReadModelIndex.PROCESS_DEFINITION)), List.of(new Criterion.OneOf("key", chunk)),
          List.of(SortField.ascending("key")), 0, chunk.size(), List.of(), List.of("bpmnXml"), storeTimeout));
      for (SearchHits.Hit hit : hits.hits()) {
        byKey.put(((Number) hit.source().get("key")).longValue(), hit.source());
      }
    }
    return byKey;
  }

  /** A group's numeric key value. */
  static long number(GroupCountQuery.Group group, String field) {
    return ((Number) group.key().get(field)).longValue();
  }
}
