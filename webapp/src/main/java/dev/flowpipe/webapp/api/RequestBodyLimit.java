package dev.flowpipe.webapp.api;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The cap on a request body ({@code flowpipe.webapp.limits.max-body-size}): a body whose {@code Content-Length} is
 * above it is answered 413 before a byte of it is read; a body without a length (chunked) is read through a counter
 * that fails at the cap ({@link BodyTooLargeException}, answered 413 by {@link ProblemHandler}). Either way no request
 * makes the node hold more than the cap of body.
 */
public final class RequestBodyLimit extends OncePerRequestFilter {

  /** The setting's key, named in the answers. */
  public static final String LIMIT = "flowpipe.webapp.limits.max-body-size";

  private final long maxBytes;

  public RequestBodyLimit(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** The body grew beyond the cap while it was read. */
  public static final class BodyTooLargeException extends IOException {
    private final long maxBytes;

    BodyTooLargeException(long maxBytes) {
      super("the request body is larger than " + maxBytes + " bytes (" + LIMIT + ")");
      this.maxBytes = maxBytes;
    }

    public long maxBytes() {
      return maxBytes;
    }
  }

  @Override
  protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    long length = request.getContentLengthLong();
    if (length > maxBytes) {
      // the rest of the body is not read: the connection closes after the answer
      response.setHeader(HttpHeaders.CONNECTION, "close");
      ProblemResponses.write(request, response, HttpStatus.PAYLOAD_TOO_LARGE,
          "the request body has " + length + " bytes; at most " + maxBytes + " (" + LIMIT + ")",
          Map.of("limit", LIMIT, "maximum", maxBytes, "value", length));
      return;
    }
    chain.doFilter(length >= 0 ? request : new Capped(request, maxBytes), response);
  }

  /** A request whose body fails once more than the cap was read. */
  private static final class Capped extends HttpServletRequestWrapper {
    private final long maxBytes;
    private ServletInputStream stream;

    Capped(HttpServletRequest request, long maxBytes) {
      super(request);
      this.maxBytes = maxBytes;
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      if (stream == null) {
        stream = new CountingStream(super.getInputStream(), maxBytes);
      }
      return stream;
    }

    @Override
    public BufferedReader getReader() throws IOException {
      String encoding = getCharacterEncoding();
      Charset charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
      return new BufferedReader(new InputStreamReader(getInputStream(), charset));
    }
  }

  private static final class CountingStream extends ServletInputStream {
    private final ServletInputStream in;
    private final long maxBytes;
    private long read;

    CountingStream(ServletInputStream in, long maxBytes) {
      this.in = in;
      this.maxBytes = maxBytes;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      int n = in.read(buffer, offset, length);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) throws IOException {
      read += n;
      if (read > maxBytes) {
        throw new BodyTooLargeException(maxBytes);
      }
    }

    @Override
    public boolean isFinished() {
      return in.isFinished();
    }

    @Override
    public boolean isReady() {
      return in.isReady();
    }

    @Override
    public void setReadListener(ReadListener listener) {
      in.setReadListener(listener);
    }
  }
}
