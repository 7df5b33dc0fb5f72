// Live updates: one Server-Sent Events stream (/ui/live) per page tells when the read model moved (ADR 0020); the
// shown view reloads then, and never on a timer while the stream is open. The browser's EventSource reconnects a
// dropped stream by itself and names the last event it saw (Last-Event-ID), so the server sends only whether the read
// model moved meanwhile: one reload catches up. When the server refuses the stream (an old server, too many streams),
// the page polls as before and asks for a stream again later.

const RETRY_MILLIS = 5000;

/**
 * Opens the stream. {@code onChange} runs when the read model moved past what this page saw; {@code onState} with
 * 'live' when the stream is open, 'reconnecting' while the browser reconnects a dropped one (no polling: the stream
 * catches up once back), 'polling' when the server refused it (the caller polls meanwhile).
 */
export function connectLive({ onChange, onState }) {
  let seen = null; // the last event id: where the read model was when this page last heard of it
  let source = null;
  let state = 'connecting';
  let opened = false; // a stream was open once: a drop is then waited out, not polled through
  const setState = value => {
    if (state === value) return;
    state = value;
    onState(value);
  };
  const connect = () => {
    // a stream of our own making names where we were; the browser's own reconnects send Last-Event-ID instead
    source = new EventSource('/ui/live' + (seen ? '?lastEventId=' + encodeURIComponent(seen) : ''));
    source.addEventListener('open', () => { opened = true; setState('live'); });
    source.addEventListener('positions', event => {
      const first = seen === null;
      const moved = event.lastEventId !== seen;
      seen = event.lastEventId;
      setState('live');
      // the first event is where the read model stood when the page opened: the page read that already
      if (!first && moved) onChange();
    });
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        // refused (not a drop, which the browser retries itself): poll meanwhile, ask again later
        setState('polling');
        setTimeout(connect, RETRY_MILLIS);
      } else {
        // a drop: the browser reconnects by itself; a stream that never opened is polled around meanwhile
        setState('reconnecting');
      }
    });
  };
  connect();
  return { isLive: () => state === 'live' || (state === 'reconnecting' && opened) };
}
