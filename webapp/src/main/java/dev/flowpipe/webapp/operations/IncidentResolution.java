package dev.flowpipe.webapp.operations;

import dev.flowpipe.webapp.api.NotFoundException;
import dev.flowpipe.webapp.api.SearchService;
import dev.flowpipe.webapp.query.Entity;

/**
 * Resolving an incident as Operate does: for an incident of a job without retries left (as the read model shows it),
 * the job gets 1 retry first, or the engine would raise the incident again at once. Used by the single operation and
 * by the batch.
 */
public final class IncidentResolution {

  private final EngineCommands engine;
  private final SearchService readModel;

  public IncidentResolution(EngineCommands engine, SearchService readModel) {
    this.engine = engine;
    this.readModel = readModel;
  }

  public void resolve(long incidentKey) {
    Long jobKey = jobWithoutRetries(incidentKey);
    if (jobKey != null) {
      engine.updateJob(jobKey, 1, null);
    }
    engine.resolveIncident(incidentKey);
  }

  /** The job of a job incident whose retries the read model shows used up; null for other incidents or unknown. */
  private Long jobWithoutRetries(long incidentKey) {
    try {
      Object jobKey = readModel.get(Entity.INCIDENTS, Long.toString(incidentKey)).get("jobKey");
      if (jobKey == null) {
        return null;
      }
      Object retries = readModel.get(Entity.JOBS, jobKey.toString()).get("retries");
      return retries instanceof Number n && n.intValue() > 0 ? null : Long.valueOf(jobKey.toString());
    } catch (NotFoundException e) {
      return null; // not (yet) in the read model: the engine knows the incident and decides
    }
  }
}
