package dev.flowpipe.webapp.live;

import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * A web app whose sockets have a small send buffer, so a page that stops reading fills it within a few kilobytes (the
 * kernel's default grows to megabytes on loopback): added with {@code spring.main.sources}. No {@code @Configuration}:
 * the web app's component scan would add it to every test's web app.
 */
public class SmallSendBuffers {

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> tomcatSendBuffer() {
    return factory -> factory.addConnectorCustomizers(connector -> connector.setProperty("socket.txBufSize", "4096"));
  }
}
