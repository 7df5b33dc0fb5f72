package dev.flowpipe.webapp.query;

import java.util.List;

/**
 * Which page to answer: by offset ({@code from}), or next to a cursor ({@code after} or {@code before}, the sort
 * values decoded). At most one of the three.
 */
public record Page(int limit, int from, List<Object> after, List<Object> before) {

  public boolean backwards() {
    return before != null;
  }
}
