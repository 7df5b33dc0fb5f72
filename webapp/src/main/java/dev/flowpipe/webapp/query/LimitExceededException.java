package dev.flowpipe.webapp.query;

/**
 * A request beyond one of the budgets of {@code flowpipe.webapp.limits} (or a paging limit): answered 400 with the
 * extensions {@code part}, {@code limit} (the setting's key), {@code maximum} and {@code value}, so a client can see
 * which budget it ran into and by how much.
 */
public class LimitExceededException extends BadRequestException {

  private final String limit;
  private final long maximum;
  private final Long value;

  /**
   * @param what what was counted, e.g. "values of $in"
   * @param limit the setting's key, e.g. {@code flowpipe.webapp.limits.max-list-values}
   */
  public LimitExceededException(String part, String what, String limit, long maximum, long value) {
    this(part, "at most " + maximum + " " + what + " (" + limit + "), was " + value, limit, maximum, (Long) value);
  }

  private LimitExceededException(String part, String detail, String limit, long maximum, Long value) {
    super(part, detail);
    this.limit = limit;
    this.maximum = maximum;
    this.value = value;
  }

  /** A budget that ran out while the request was carried out, so there is no value to name, e.g. a time. */
  public static LimitExceededException ranOut(String part, String detail, String limit, long maximum) {
    return new LimitExceededException(part, detail + " (" + limit + ": " + maximum + ")", limit, maximum, null);
  }

  /** Throws when {@code value} is above {@code maximum}. */
  public static void check(String part, String what, String limit, long maximum, long value) {
    if (value > maximum) {
      throw new LimitExceededException(part, what, limit, maximum, value);
    }
  }

  public String limit() {
    return limit;
  }

  public long maximum() {
    return maximum;
  }

  /** The request's value, or null for a budget that ran out (a time). */
  public Long value() {
    return value;
  }
}
