package dev.flowpipe.importer.source;


/** One value type's records of a partition, in position order, as a {@link SequenceReader} holds them. */
public interface RecordSource {

  /** The next record, or null when none is held. */
  RawRecord peek();

  RawRecord take();

  boolean isEmpty();

  /** Clock millis at which the last completed read started, -1 before the first. */
  long lastReadStartMillis();

  /** The hole the last read stopped at, or null. */
  SequenceReader.Gap gap();

  /** Whether the last read left records it counted after its page (a backlog): it must read again to know them. */
  boolean moreUnread();
}
