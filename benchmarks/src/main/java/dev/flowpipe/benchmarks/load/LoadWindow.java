package dev.flowpipe.benchmarks.load;

import dev.flowpipe.benchmarks.report.Unit;
import dev.flowpipe.benchmarks.report.Section;

/**
 * One second of a load run, counted by the second in which each thing happened, except the creates: an attempt and
 * its outcome ({@code created}, {@code createRejected}, {@code createTimedOut}) count in the second the start was due
 * (the answer of a create-with-result only comes when the instance completes).
 *
 * @param second seconds since the start of the run (this window covers [second, second + 1))
 * @param createAttempts create commands sent (due in this second)
 * @param created of those, accepted by the broker (answered with the completed instance)
 * @param createRejected of those, rejected with RESOURCE_EXHAUSTED
 * @param createTimedOut of those, not answered within the request timeout
 * @param heldBack starts that were due but not sent because {@code maxInFlight} instances were in flight
 * @param completed instances whose completion the client learned of in this second
 * @param completeAttempts job-complete commands sent
 * @param completeRejected of those, rejected with RESOURCE_EXHAUSTED (the worker retries them)
 * @param errors other failed commands
 * @param latencyP50 process execution latency of the instances completed in this second, ms; -1 if none
 * @param latencyP90 see latencyP50
 * @param latencyP99 see latencyP50
 * @param latencyMax see latencyP50
 * @param lagAgeMillis the exporter's lag at the end of this second (age of the oldest record not yet durable); -1 if
 *     not read
 * @param lagRecords the exporter's lag in records; -1 if not read
 */
public record LoadWindow(
    int second,
    long createAttempts,
    long created,
    long createRejected,
    long createTimedOut,
    long heldBack,
    long completed,
    long completeAttempts,
    long completeRejected,
    long errors,
    long latencyP50,
    long latencyP90,
    long latencyP99,
    long latencyMax,
    long lagAgeMillis,
    long lagRecords) {

  /** Commands sent in this second (creates and job completions). */
  public long commands() {
    return createAttempts + completeAttempts;
  }

  /** Commands rejected with RESOURCE_EXHAUSTED. */
  public long rejected() {
    return createRejected + completeRejected;
  }

  /** The share of this second's commands that were rejected, 0 to 1; 0 when none were sent. */
  public double rejectedShare() {
    return commands() == 0 ? 0 : rejected() / (double) commands();
  }

  /** This second as a report section. */
  public Section toSection() {
    Section m = new Section().figure("second", second)
        .figure("createAttempts", createAttempts)
        .figure("created", created)
        .figure("createRejected", createRejected)
        .figure("createTimedOut", createTimedOut)
        .figure("heldBack", heldBack)
        .figure("completed", completed)
        .figure("completeAttempts", completeAttempts)
        .figure("completeRejected", completeRejected)
        .figure("errors", errors)
        .figure("rejectedShare", Math.round(rejectedShare() * 10_000) / 10_000.0);
    if (latencyMax < 0) {
      m.put("latencyMillis", new Section.Empty());
    } else {
      m.section("latencyMillis").figure("p50", latencyP50, Unit.MILLIS).figure("p90", latencyP90, Unit.MILLIS)
          .figure("p99", latencyP99, Unit.MILLIS).figure("max", latencyMax, Unit.MILLIS);
    }
    return m.figure("lagAgeMillis", lagAgeMillis < 0 ? null : lagAgeMillis)
        .figure("lagRecords", lagRecords < 0 ? null : lagRecords);
  }
}
