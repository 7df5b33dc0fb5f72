package dev.flowpipe.webapp.consistency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.webapp.ManualClock;
import dev.flowpipe.schema.index.ReadModelIndex;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.webapp.readmodel.ReadModel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The poller of the read-your-writes waits, driven round by round with a manual clock (the scheduler's own rounds are
 * an hour apart, so only the test's rounds run): waits end when the store shows their condition or when their time,
 * on the injected clock, is up; beyond the maximum a wait is refused; nothing sleeps.
 */
@ExtendWith(SharedOpenSearch.class)
class ReadYourWritesPollerTest {

  private final ManualClock clock = new ManualClock();
  private ScheduledExecutorService scheduler;
  private SearchStore store;
  private String prefix;
  private ReadYourWrites waits;

  @BeforeEach
  void start(SearchStore sharedStore) {
    store = sharedStore;
    prefix = SharedOpenSearch.uniquePrefix();
    scheduler = Executors.newSingleThreadScheduledExecutor();
    ReadModel model = new ReadModel() {
      @Override
      public SearchStore store() {
        return store;
      }

      @Override
      public String indexPrefix() {
        return prefix;
      }
    };
    waits = new ReadYourWrites(model, clock, scheduler, Runnable::run, Duration.ofHours(1), 2);
  }

  @AfterEach
  void stop() {
    waits.close();
    scheduler.shutdownNow();
  }

  private void markExported(int partition, long position) {
    store.bulk(List.of(new DocumentWrite(ReadModelIndex.EXPORT_POSITION.indexName(prefix),
        ReadModelIndex.exportPositionId(partition), position, Map.of("partitionId", partition))));
  }

  private static ConsistencyRequest position(int partition, long position, Duration timeout) {
    return new ConsistencyRequest(null, List.of(new ConsistencyRequest.PartitionPosition(partition, position)),
        timeout);
  }

  @Nested
  class AWaitEnds {

    @Test
    void inTheFirstRoundAfterTheExporterMarkedItsPosition() {
      markExported(1, 10);
      CompletableFuture<ReadYourWrites.Outcome> outcome = waits.await(position(1, 20, Duration.ofSeconds(5)));
      clock.advance(Duration.ofMillis(300));
      waits.poll();
      assertThat(outcome).isNotDone();

      markExported(1, 25);
      clock.advance(Duration.ofMillis(200));
      waits.poll();

      assertThat(outcome).isCompletedWithValue(new ReadYourWrites.Outcome(true, Duration.ofMillis(500)));
      assertThat(waits.waiting()).isZero();
    }

    @Test
    void timedOutWhenTheClockPassesItsDeadlineAndNotBefore() {
      CompletableFuture<ReadYourWrites.Outcome> outcome = waits.await(position(2, 99, Duration.ofSeconds(2)));

      clock.advance(Duration.ofMillis(1999));
      waits.poll();
      assertThat(outcome).isNotDone();
      clock.advance(Duration.ofMillis(1));
      waits.poll();

      assertThat(outcome).isCompletedWithValue(new ReadYourWrites.Outcome(false, Duration.ofSeconds(2)));
    }

    @Test
    void inTheNextRoundWhenTheConditionHoldsOnArrivalAndAtOnceOnceARefreshMadeItSearchable() {
      markExported(3, 50);

      CompletableFuture<ReadYourWrites.Outcome> first = waits.await(position(3, 50, Duration.ofSeconds(2)));
      assertThat(first).as("no store call on the request's thread: the poller's round decides").isNotDone();
      waits.poll();
      assertThat(first).isCompletedWithValue(new ReadYourWrites.Outcome(true, Duration.ZERO));

      CompletableFuture<ReadYourWrites.Outcome> again = waits.await(position(3, 40, Duration.ofSeconds(2)));

      assertThat(again).as("below what the round's refresh made searchable").isCompletedWithValue(
          new ReadYourWrites.Outcome(true, Duration.ZERO));
      assertThat(waits.waiting()).isZero();
    }
  }

  @Nested
  class Bounds {

    @Test
    void beyondTheMaximumAWaitIsRefusedAndOnceOneEndedAnotherIsTaken() {
      waits.await(position(4, 1, Duration.ofSeconds(1)));
      waits.await(position(4, 1, Duration.ofSeconds(5)));

      assertThatThrownBy(() -> waits.await(position(4, 1, Duration.ofSeconds(5))))
          .isInstanceOf(TooManyWaitsException.class).hasMessageContaining("flowpipe.webapp.consistency.max-waits");

      clock.advance(Duration.ofSeconds(1));
      waits.poll();
      assertThat(waits.waiting()).isEqualTo(1);
      assertThat(waits.await(position(4, 1, Duration.ofSeconds(5)))).isNotDone();
    }

    @Test
    void closingEndsEveryWaitTimedOut() {
      CompletableFuture<ReadYourWrites.Outcome> outcome = waits.await(position(5, 1, Duration.ofSeconds(5)));

      waits.close();

      assertThat(outcome.join().reached()).isFalse();
      assertThat(waits.waiting()).isZero();
    }
  }
}
