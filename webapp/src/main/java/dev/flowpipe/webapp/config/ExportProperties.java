package dev.flowpipe.webapp.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The CSV export of instance lists ({@code flowpipe.webapp.export.*}).
 *
 * @param maxRows the most rows one export writes; a list with more ends there (the answer's
 *     {@code Flowpipe-Export-Total} says how many matched)
 * @param pageSize how many rows each store request reads (cursor pages), so the export holds one page in memory
 */
@ConfigurationProperties("flowpipe.webapp.export")
public record ExportProperties(@DefaultValue("100000") int maxRows, @DefaultValue("1000") int pageSize) {

  private static final String P = "flowpipe.webapp.export.";

  public ExportProperties {
    if (maxRows < 1 || maxRows > 10_000_000) {
      throw new IllegalArgumentException(P + "max-rows must be 1 to 10000000, was " + maxRows);
    }
    if (pageSize < 1 || pageSize > 10_000) {
      throw new IllegalArgumentException(P + "page-size must be 1 to 10000, was " + pageSize);
    }
  }
}
