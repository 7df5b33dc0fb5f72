package dev.flowpipe.webapp.config;

import static dev.flowpipe.settings.SettingRules.positive;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Live updates of the open pages ({@code flowpipe.webapp.live.*}): the stream {@code GET /ui/live} that tells pages
 * when the read model moved, so they reload then and never on a timer.
 *
 * @param pollInterval how often the web app reads the exporter's export positions (one multi-get per round for all
 *     open pages, and only while a page is open); a change reaches pages at most this much after it is written
 * @param keepAlive how often an idle stream carries a comment line, so proxies keep it open
 * @param streamTimeout how long one stream lasts; the browser then opens the next, resuming from its last event
 * @param reconnectDelay how long a browser waits before it reconnects a dropped stream (sent to it as {@code retry})
 * @param writeTimeout how long one write to a page may be under way before the page counts as not reading: its stream
 *     is dropped (the others never wait for it) and closed, and the browser reconnects and catches up
 * @param maxStreams how many streams may be open at once; one more is answered 429 and the page polls instead
 * @param refresh whether the poller refreshes the read model's indices on a move before it tells the pages; needless
 *     (and, on a loaded store, hundreds of milliseconds to seconds) when every writer refreshes what it wrote before
 *     it marks its export position, as the node's exporter does with {@code flowpipe.exporter.bulk.refresh} on
 */
@ConfigurationProperties("flowpipe.webapp.live")
public record LiveProperties(
    @DefaultValue("200ms") Duration pollInterval,
    @DefaultValue("25s") Duration keepAlive,
    @DefaultValue("30m") Duration streamTimeout,
    @DefaultValue("1s") Duration reconnectDelay,
    @DefaultValue("10s") Duration writeTimeout,
    @DefaultValue("1000") int maxStreams,
    @DefaultValue("true") boolean refresh) {

  private static final String P = "flowpipe.webapp.live.";

  public LiveProperties {
    positive(P + "poll-interval", pollInterval);
    positive(P + "keep-alive", keepAlive);
    positive(P + "stream-timeout", streamTimeout);
    positive(P + "reconnect-delay", reconnectDelay);
    positive(P + "write-timeout", writeTimeout);
    if (maxStreams < 1 || maxStreams > 100_000) {
      throw new IllegalArgumentException(P + "max-streams must be 1 to 100000, was " + maxStreams);
    }
  }
}
