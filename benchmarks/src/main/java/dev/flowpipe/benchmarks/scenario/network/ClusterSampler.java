package dev.flowpipe.benchmarks.scenario.network;

import dev.flowpipe.testsupport.PrometheusSamples;
import dev.flowpipe.benchmarks.prometheus.ExporterLag;
import dev.flowpipe.benchmarks.prometheus.FlowControlRefusals;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Once a second, every node's {@code /actuator/prometheus}: who leads which partition (the Raft role,
 * {@code atomix_role} 3), the mean commit latency of that second (appended to committed, from the leaders' histogram
 * {@code zeebe_log_appender_commit_latency}), the requests the broker's request limiter dropped against those it
 * received, the largest exporter lag, and the commands our flow control refused; on a thread of its own until closed.
 */
public final class ClusterSampler implements AutoCloseable {

  private static final int LEADER = 3;

  /**
   * One second of the cluster.
   *
   * @param leaders the leading node by partition; a partition without a leader (or whose leader did not answer) is
   *     left out
   * @param commitLatencyMillis mean time from append to commit of what was committed in this second; -1 if nothing
   * @param committedEntries appends committed in this second
   * @param droppedShare requests the request limiters dropped, of those received in this second, 0 to 1
   * @param lagAgeMillis the largest exporter lag age of any node; -1 if none answered
   * @param refusedByFlowControl commands our flow control refused in this second
   * @param unanswered nodes whose metrics could not be read in this second
   */
  public record Sample(double second, Map<Integer, Integer> leaders, double commitLatencyMillis, long committedEntries,
      double droppedShare, long lagAgeMillis, long refusedByFlowControl, int unanswered) {}

  /** What one node's counters stood at. */
  private record Counters(double commitSeconds, double commits, double dropped, double received, double refused) {}

  private final List<URI> nodes;
  private final long startNanos;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
  private final List<Sample> samples = new ArrayList<>();
  private final Map<Integer, Counters> last = new HashMap<>();
  private final Thread thread;

  /** Starts sampling the nodes at these HTTP addresses; seconds count from {@code startNanos}. */
  public ClusterSampler(List<URI> nodeHttp, long startNanos) {
    this.nodes = List.copyOf(nodeHttp);
    this.startNanos = startNanos;
    this.thread = Thread.ofPlatform().daemon().name("cluster-sampler").start(this::sampleEverySecond);
  }

  private void sampleEverySecond() {
    long next = System.nanoTime();
    while (!Thread.currentThread().isInterrupted()) {
      sampleOnce();
      next += 1_000_000_000L;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  private void sampleOnce() {
    double second = (System.nanoTime() - startNanos) / 1e9;
    Map<Integer, Integer> leaders = new TreeMap<>();
    double commitSeconds = 0;
    double commits = 0;
    double dropped = 0;
    double received = 0;
    double refused = 0;
    long lag = -1;
    int unanswered = 0;
    for (int node = 0; node < nodes.size(); node++) {
      String text = read(nodes.get(node));
      if (text == null) {
        unanswered++;
        continue;
      }
      double nodeCommitSeconds = 0;
      double nodeCommits = 0;
      double nodeDropped = 0;
      double nodeReceived = 0;
      for (PrometheusSamples.Sample sample : PrometheusSamples.parse(text).all()) {
        double value = sample.value();
        switch (sample.name()) {
          case "atomix_role" -> {
            String partition = sample.label("partition");
            if (value == LEADER && partition != null) {
              leaders.put(Integer.parseInt(partition), node);
            }
          }
          case "zeebe_log_appender_commit_latency_sum" -> nodeCommitSeconds += value;
          case "zeebe_log_appender_commit_latency_count" -> nodeCommits += value;
          case "zeebe_dropped_request_count_total" -> nodeDropped += value;
          case "zeebe_received_request_count_total" -> nodeReceived += value;
          default -> { }
        }
      }
      ExporterLag nodeLag = ExporterLag.parse(text);
      if (nodeLag != null) {
        lag = Math.max(lag, nodeLag.ageMillis());
      }
      Counters now = new Counters(nodeCommitSeconds, nodeCommits, nodeDropped, nodeReceived,
          FlowControlRefusals.parse(text));
      Counters before = last.put(node, now);
      if (before != null && now.commits() >= before.commits()) { // a restarted node's counters start again at 0
        commitSeconds += now.commitSeconds() - before.commitSeconds();
        commits += now.commits() - before.commits();
        dropped += now.dropped() - before.dropped();
        received += now.received() - before.received();
        refused += now.refused() - before.refused();
      }
    }
    Sample sample = new Sample(Math.round(second * 10) / 10.0, leaders,
        commits == 0 ? -1 : Math.round(commitSeconds / commits * 10_000) / 10.0, Math.round(commits),
        received == 0 ? 0 : Math.round(dropped / received * 10_000) / 10_000.0, lag, Math.round(refused), unanswered);
    synchronized (samples) {
      samples.add(sample);
    }
  }

  private String read(URI node) {
    try {
      HttpResponse<String> response = http.send(HttpRequest.newBuilder(node.resolve("/actuator/prometheus"))
          .timeout(Duration.ofMillis(900)).build(), HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 ? response.body() : null;
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return null;
    }
  }

  /** The latest leader of {@code partition}, or -1 if no sample has one yet. */
  public int leaderOf(int partition) {
    synchronized (samples) {
      for (int i = samples.size() - 1; i >= 0; i--) {
        Integer leader = samples.get(i).leaders().get(partition);
        if (leader != null) {
          return leader;
        }
      }
    }
    return -1;
  }

  public List<Sample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  @Override
  public void close() throws InterruptedException {
    thread.interrupt();
    thread.join(5_000);
  }
}
