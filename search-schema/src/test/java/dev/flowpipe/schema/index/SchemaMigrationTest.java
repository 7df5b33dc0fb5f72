package dev.flowpipe.schema.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.flowpipe.embeddedstore.EmbeddedSearchStore;
import dev.flowpipe.schema.MigratedReadModel;
import dev.flowpipe.schema.SharedOpenSearch;
import dev.flowpipe.schema.TestClock;
import dev.flowpipe.schema.store.DocumentWrite;
import dev.flowpipe.schema.store.SearchStore;
import dev.flowpipe.schema.store.StoreUnavailableException;
import dev.flowpipe.testsupport.PreviousSchemaReadModel;
import dev.flowpipe.testsupport.PreviousSchemaReadModel.Document;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A read model of schema version 1 in a real OpenSearch, migrated in place by the schema manager. */
@ExtendWith(SharedOpenSearch.class)
class SchemaMigrationTest {

  private static final int PER_ENTITY = 250;

  private final SearchStore store;
  private final String url;
  private final String prefix = SharedOpenSearch.uniquePrefix();

  SchemaMigrationTest(SearchStore store, EmbeddedSearchStore node) {
    this.store = store;
    this.url = node.url();
  }

  @Test
  void aStoreOfThePreviousVersionIsMigratedWithEveryDocumentItsFieldsAndItsVersion() {
    var written = PreviousSchemaReadModel.write(url, prefix, PER_ENTITY);
    MigrationProgress progress = new MigrationProgress();

    manager(store, settings(new TestClock()), progress).ensureSchema();

    MigratedReadModel.assertMigrated(store, prefix, written);
    long total = 6L * PER_ENTITY + 2;
    assertThat(progress.snapshot()).isEqualTo(
        new MigrationProgress.Snapshot(MigrationProgress.State.MIGRATED, 1, 2, total, total, null));
  }

  @Test
  void aSecondStartAfterTheMigrationFindsNothingToMigrate() {
    var written = PreviousSchemaReadModel.write(url, prefix, 10);
    manager(store, settings(new TestClock()), new MigrationProgress()).ensureSchema();
    MigrationProgress second = new MigrationProgress();

    manager(store, settings(new TestClock()), second).ensureSchema();

    assertThat(second.snapshot().state()).isEqualTo(MigrationProgress.State.NOT_NEEDED);
    MigratedReadModel.assertMigrated(store, prefix, written);
  }

  @Test
  void aMigrationInterruptedMidCopyIsResumedByTheNextStartWithoutLossDuplicatesOrOverwritingNewerDocuments() {
    var written = PreviousSchemaReadModel.write(url, prefix, PER_ENTITY);
    MigrationProgress interrupted = new MigrationProgress();
    // given a start whose store connection breaks at the fourth page it copies
    assertThatThrownBy(() -> manager(failingAtBulk(4), settings(new TestClock()), interrupted).ensureSchema())
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(interrupted.snapshot().state()).isEqualTo(MigrationProgress.State.FAILED);
    assertThat(store.indexExists(ReadModelIndex.VARIABLE.indexName(prefix)))
        .as("no entity name before every document is there").isFalse();
    // and a document the new version already holds at a later position
    Document first = written.get(ReadModelIndex.PROCESS_INSTANCE.entity()).getFirst();
    Map<String, Object> newer = new java.util.LinkedHashMap<>(first.fields());
    newer.put("state", "CANCELED");
    store.bulk(List.of(new DocumentWrite(ReadModelIndex.sharedIndexName(prefix),
        ReadModelIndex.PROCESS_INSTANCE.storedId(first.id()), first.position() + 1,
        ReadModelIndex.PROCESS_INSTANCE.storedSource(newer))), true);

    // when the next start finds the interrupted run's marker silent for the lease expiry
    MigrationProgress resumed = new MigrationProgress();
    manager(store, settings(new TestClock()), resumed).ensureSchema();

    // then every document is there once, and the newer one kept its state
    assertThat(resumed.snapshot().state()).isEqualTo(MigrationProgress.State.MIGRATED);
    assertThat(store.get(ReadModelIndex.PROCESS_INSTANCE.indexName(prefix), first.id()))
        .hasValueSatisfying(doc -> assertThat(doc).containsEntry("state", "CANCELED"));
    written.get(ReadModelIndex.PROCESS_INSTANCE.entity()).set(0, new Document(first.id(), first.position() + 1, newer));
    MigratedReadModel.assertMigrated(store, prefix, written);
  }

  @Test
  void twoProcessesStartingAtOnceMigrateOnceAndBothComeUpWithTheSchema() throws Exception {
    var written = PreviousSchemaReadModel.write(url, prefix, 60);
    MigrationProgress one = new MigrationProgress();
    MigrationProgress two = new MigrationProgress();
    // real waiting here: two real processes racing for the marker in one real store
    SchemaMigration.Settings settings = new SchemaMigration.Settings(100, Duration.ofSeconds(30),
        Duration.ofMillis(200), Duration.ofSeconds(5), Clock.systemUTC(), duration -> Thread.sleep(duration));

    CompletableFuture<Void> first = CompletableFuture.runAsync(() -> manager(store, settings, one).ensureSchema());
    CompletableFuture<Void> second = CompletableFuture.runAsync(() -> manager(store, settings, two).ensureSchema());
    CompletableFuture.allOf(first, second).get(60, java.util.concurrent.TimeUnit.SECONDS);

    MigratedReadModel.assertMigrated(store, prefix, written);
    long total = 6L * 60 + 2;
    assertThat(List.of(one.snapshot().copied(), two.snapshot().copied()))
        .as("one process copied everything, the other nothing").containsExactlyInAnyOrder(total, 0L);
  }

  private SchemaManager manager(SearchStore on, SchemaMigration.Settings settings, MigrationProgress progress) {
    return new SchemaManager(on, prefix, IndexLayout.singleNode("1s"), settings, progress);
  }

  /** Pages of 100, a lease of 5 s; a waiting process's pause moves the test clock on instead of sleeping. */
  private static SchemaMigration.Settings settings(TestClock clock) {
    return new SchemaMigration.Settings(100, Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(5),
        clock, clock::advance);
  }

  /** The real store, except that its {@code n}-th bulk fails as if the connection broke. */
  private SearchStore failingAtBulk(int n) {
    AtomicInteger bulks = new AtomicInteger();
    return (SearchStore) Proxy.newProxyInstance(SearchStore.class.getClassLoader(), new Class<?>[] {SearchStore.class},
        (proxy, method, args) -> {
          if (method.getName().equals("bulk") && bulks.incrementAndGet() == n) {
            throw new StoreUnavailableException("connection reset (test)");
          }
          try {
            return method.invoke(store, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
