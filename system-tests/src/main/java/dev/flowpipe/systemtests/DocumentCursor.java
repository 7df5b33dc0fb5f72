package dev.flowpipe.systemtests;

import dev.flowpipe.schema.query.Criterion;
import dev.flowpipe.schema.query.SearchHits;
import dev.flowpipe.schema.query.SearchQuery;
import dev.flowpipe.schema.query.SortField;
import dev.flowpipe.schema.store.SearchStore;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Every document of one read-model entity, a page at a time through the store port: first those with a {@code key}
 * in ascending key order (a cursor after the last key, so any number of them), then any without one (a document
 * made only of updates, which a correct exporter never writes). Searches what is searchable: refresh first.
 */
public final class DocumentCursor implements Iterator<SearchHits.Hit> {

  private static final int PAGE = 200;
  private static final int MAX_WITHOUT_KEY = 10_000;
  private static final List<SortField> BY_KEY = List.of(SortField.ascending("key"));

  private final SearchStore store;
  private final String index;
  private final Deque<SearchHits.Hit> page = new ArrayDeque<>();
  private List<Object> after = List.of();
  private boolean keyedDone;
  private boolean unkeyedDone;

  public DocumentCursor(SearchStore store, String index) {
    this.store = store;
    this.index = index;
  }

  @Override
  public boolean hasNext() {
    while (page.isEmpty() && !unkeyedDone) {
      if (!keyedDone) {
        SearchHits hits = store.search(new SearchQuery(List.of(index), List.of(new Criterion.Exists("key")), BY_KEY, 0,
            PAGE, after, List.of()));
        page.addAll(hits.hits());
        if (hits.hits().size() < PAGE) {
          keyedDone = true;
        } else {
          after = hits.hits().getLast().sortValues();
        }
      } else {
        SearchHits hits = store.search(SearchQuery.of(index,
            List.of(new Criterion.Not(new Criterion.Exists("key"))), List.of(), MAX_WITHOUT_KEY));
        if (hits.total() > MAX_WITHOUT_KEY) {
          throw new IllegalStateException(index + ": " + hits.total() + " documents without a key; at most "
              + MAX_WITHOUT_KEY + " can be read");
        }
        page.addAll(hits.hits());
        unkeyedDone = true;
      }
    }
    return !page.isEmpty();
  }

  @Override
  public SearchHits.Hit next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.removeFirst();
  }

  /** The document's key, or null for one without a key (those come last). */
  public static Long key(SearchHits.Hit hit) {
    return hit.source().get("key") instanceof Number key ? key.longValue() : null;
  }
}
