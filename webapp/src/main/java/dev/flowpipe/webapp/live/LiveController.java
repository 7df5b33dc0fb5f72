package dev.flowpipe.webapp.live;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * The UI's live stream: Server-Sent Events telling open pages that the read model moved (ADR 0020). The browser's
 * {@code EventSource} resumes with {@code Last-Event-ID}; a page that opens a new stream itself (after the server
 * refused one) names where it was with {@code ?lastEventId=}.
 */
@RestController
public class LiveController {

  private final LiveUpdates updates;

  public LiveController(LiveUpdates updates) {
    this.updates = updates;
  }

  @GetMapping(path = "/ui/live", produces = "text/event-stream")
  public SseEmitter live(@RequestHeader(name = "Last-Event-ID", required = false) String lastEventId,
      @RequestParam(name = "lastEventId", required = false) String resumeFrom) {
    return updates.open(lastEventId != null ? lastEventId : resumeFrom);
  }
}
