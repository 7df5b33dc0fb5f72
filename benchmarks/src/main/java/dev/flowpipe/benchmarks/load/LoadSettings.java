package dev.flowpipe.benchmarks.load;

import dev.flowpipe.benchmarks.cli.ScenarioArguments;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the load generator does, validated on construction; every failure names the setting and the bad value.
 *
 * @param ratePerSecond process instances started per second (paced: the n-th at n / rate seconds)
 * @param duration how long instances are started
 * @param payloadBytes size of the string variable {@code payload} every instance starts with (ASCII, so bytes)
 * @param model a {@code .bpmn} file whose service-task job types get workers; null for the built-in one-task model
 * @param workerDelay how long a worker holds each job before completing it
 * @param maxInFlight instances started and not yet completed, at most; a start due while this many are in flight is
 *     not sent and counted as held back
 * @param gateway the gRPC gateway of an external node; null to let the harness start a fresh node
 * @param nodeHttp the node's HTTP address (its Prometheus metrics for the exporter lag); null for none
 */
public record LoadSettings(
    double ratePerSecond,
    Duration duration,
    int payloadBytes,
    Path model,
    Duration workerDelay,
    int maxInFlight,
    URI gateway,
    URI nodeHttp) {

  /** Zeebe's default maximum message size is 4 MB; leave room for the rest of the command. */
  public static final int MAX_PAYLOAD_BYTES = 3 * 1024 * 1024;

  public LoadSettings {
    if (!(ratePerSecond > 0) || Double.isInfinite(ratePerSecond)) {
      throw new IllegalArgumentException("rate must be > 0 process instances/s, was " + ratePerSecond);
    }
    if (duration == null || duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration must be > 0, was " + duration);
    }
    if (payloadBytes < 0 || payloadBytes > MAX_PAYLOAD_BYTES) {
      throw new IllegalArgumentException(
          "payload must be between 0 and " + MAX_PAYLOAD_BYTES + " bytes, was " + payloadBytes + " bytes");
    }
    if (model != null && !Files.isRegularFile(model)) {
      throw new IllegalArgumentException("model must be a readable .bpmn file, was " + model + " (no such file)");
    }
    if (workerDelay == null || workerDelay.isNegative()) {
      throw new IllegalArgumentException("worker delay must be >= 0, was " + workerDelay);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("max in flight must be >= 1, was " + maxInFlight);
    }
  }

  /** 10 PI/s for 60 s, no payload, the built-in model, no worker delay, 1,000 in flight, a node the harness starts. */
  public static LoadSettings defaults() {
    return new LoadSettings(10, Duration.ofSeconds(60), 0, null, Duration.ZERO, 1_000, null, null);
  }

  public LoadSettings withRate(double rate) {
    return new LoadSettings(rate, duration, payloadBytes, model, workerDelay, maxInFlight, gateway, nodeHttp);
  }

  public LoadSettings withDuration(Duration length) {
    return new LoadSettings(ratePerSecond, length, payloadBytes, model, workerDelay, maxInFlight, gateway, nodeHttp);
  }

  public LoadSettings withNodeHttp(URI http) {
    return new LoadSettings(ratePerSecond, duration, payloadBytes, model, workerDelay, maxInFlight, gateway, http);
  }

  /** The load options every scenario that runs this load takes, beside its own arguments. */
  public static final List<String> OPTIONS = List.of("payload", "model", "worker-delay", "in-flight", "gateway", "http");

  /** The {@code load} arguments read by name: the positional {@code [rate] [seconds]}, then {@link #OPTIONS}. */
  public static final List<String> NAMES = List.of("rate", "seconds", "payload", "model", "worker-delay", "in-flight",
      "gateway", "http");

  /**
   * The {@code load} command line: {@code [rate] [seconds] [--payload=1KB] [--model=file.bpmn] [--worker-delay=50ms]
   * [--in-flight=1000] [--gateway=host:port] [--http=http://host:port]} ({@code --rate=} and {@code --seconds=} for
   * the positional ones).
   */
  public static LoadSettings parse(List<String> args) {
    ScenarioArguments arguments = ScenarioArguments.positional("load", args, List.of("rate", "seconds"), null);
    LoadSettings settings = from(arguments);
    arguments.requireAllKnown(NAMES);
    return settings;
  }

  /** The load of {@code --rate}, {@code --seconds} and the {@link #OPTIONS} among a scenario's arguments. */
  public static LoadSettings from(ScenarioArguments arguments) {
    LoadSettings s = defaults();
    double rate = arguments.number("rate", s.ratePerSecond());
    Duration duration = Duration.ofMillis(Math.round(arguments.number("seconds", s.duration().toMillis() / 1000.0)
        * 1000));
    return options(arguments, rate, duration);
  }

  /** The load of the {@link #OPTIONS} among a scenario's arguments, at a rate and for a time the scenario sets. */
  public static LoadSettings options(ScenarioArguments arguments, double rate, Duration duration) {
    LoadSettings s = defaults();
    int payload = arguments.size("payload", s.payloadBytes());
    String model = arguments.text("model", null);
    Duration delay = arguments.duration("worker-delay", s.workerDelay());
    int inFlight = arguments.integer("in-flight", s.maxInFlight());
    String gatewayText = arguments.text("gateway", null);
    URI gateway = gatewayText == null ? null : URI.create("http://" + gatewayText.replaceFirst("^[a-z]+://", ""));
    String httpText = arguments.text("http", null);
    URI http = httpText == null ? null : URI.create(httpText.contains("://") ? httpText : "http://" + httpText);
    if (http != null && gateway == null) {
      throw new IllegalArgumentException("--http (" + http + ") is for an external node: give its --gateway too; "
          + "without a gateway the harness starts its own node");
    }
    return new LoadSettings(rate, duration, payload, model == null ? null : Path.of(model), delay, inFlight, gateway,
        http);
  }

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KB|KIB|MB|MIB)?", Pattern.CASE_INSENSITIVE);
  private static final Pattern TIME = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m)", Pattern.CASE_INSENSITIVE);

  /** "512", "512B", "1KB" (1,024 bytes), "2MB" (2 x 1,048,576). */
  public static int bytes(String setting, String text) {
    Matcher m = SIZE.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(setting + " must be a size like 512, 1KB or 2MB, was '" + text + "'");
    }
    long unit = switch (m.group(2) == null ? "B" : m.group(2).toUpperCase(Locale.ROOT)) {
      case "KB", "KIB" -> 1024;
      case "MB", "MIB" -> 1024 * 1024;
      default -> 1;
    };
    long value = Long.parseLong(m.group(1)) * unit;
    if (value > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(setting + " is too large, was '" + text + "'");
    }
    return (int) value;
  }

  /** "50ms", "1.5s", "2m", or ISO-8601 ("PT0.05S"). */
  public static Duration duration(String setting, String text) {
    Matcher m = TIME.matcher(text.trim());
    if (m.matches()) {
      double value = Double.parseDouble(m.group(1));
      double millis = switch (m.group(2).toLowerCase(Locale.ROOT)) {
        case "ms" -> value;
        case "s" -> value * 1000;
        default -> value * 60_000;
      };
      return Duration.ofNanos(Math.round(millis * 1_000_000));
    }
    try {
      return Duration.parse(text.trim());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(setting + " must be a duration like 50ms, 2s or 1m, was '" + text + "'");
    }
  }
}
