package dev.flowpipe.server.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The importer inside the server ({@code flowpipe.server.importer.*}); its own settings are the importer's keys,
 * {@code flowpipe.importer.*}, as for the node and the importer's command.
 *
 * @param enabled run the importer: raw records of Camunda's stock exporter into the read model
 */
@ConfigurationProperties("flowpipe.server.importer")
public record ServerImporterProperties(@DefaultValue("false") boolean enabled) {}
