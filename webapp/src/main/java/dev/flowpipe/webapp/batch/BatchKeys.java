package dev.flowpipe.webapp.batch;

import java.time.Clock;
import java.util.random.RandomGenerator;

/**
 * Keys of new batch operations: the creation time in milliseconds and 20 random bits in one positive 64-bit number,
 * as a decimal string (the v2 API's shape of a batch key). Time-ordered, so keys sort by creation; the random bits
 * make two web apps that create a batch in the same millisecond unlikely to choose the same key, and the store makes
 * it impossible: a key is only used once its lease marker is created ({@code StoreLease#claimNew}), and a taken key is
 * answered by the next candidate ({@link Candidates#candidate}). 43 bits of milliseconds last until the year 2248.
 */
final class BatchKeys {

  private static final int RANDOM_BITS = 20;
  private static final int RANDOM_MASK = (1 << RANDOM_BITS) - 1;

  private final Clock clock;
  private final RandomGenerator random;

  BatchKeys(Clock clock, RandomGenerator random) {
    this.clock = clock;
    this.random = random;
  }

  /** A first candidate: now and fresh random bits. */
  Candidates next() {
    return new Candidates(clock.millis(), random.nextInt(1 << RANDOM_BITS));
  }

  /** The candidates of one creation: the {@code attempt}-th one follows its random bits by {@code attempt}. */
  record Candidates(long millis, int randomBits) {

    String candidate(int attempt) {
      return Long.toString((millis << RANDOM_BITS) | ((randomBits + attempt) & RANDOM_MASK));
    }
  }

  /** The creation time a key carries, in epoch milliseconds. */
  static long millisOf(String key) {
    return Long.parseLong(key) >>> RANDOM_BITS;
  }
}
