package dev.flowpipe.importer.source;

import com.fasterxml.jackson.databind.introspect.AnnotatedClass;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import io.camunda.zeebe.protocol.record.ImmutableProtocol;

/**
 * Lets Jackson build Zeebe's protocol values from JSON with the builders the protocol itself declares: every value
 * interface carries {@link ImmutableProtocol} naming its immutable builder, whose setters are {@code withX}, Jackson's
 * default builder prefix. So a value interface (nested ones included, such as a deployment's process metadata) is
 * read through its builder, with nothing but the Apache-2.0 {@code zeebe-protocol} jar on the classpath.
 */
final class ProtocolBuilders extends JacksonAnnotationIntrospector {

  @Override
  public Class<?> findPOJOBuilder(AnnotatedClass type) {
    ImmutableProtocol protocol = type.getRawType().getAnnotation(ImmutableProtocol.class);
    return protocol != null ? protocol.builder() : super.findPOJOBuilder(type);
  }
}
