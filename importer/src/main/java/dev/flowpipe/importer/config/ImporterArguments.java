package dev.flowpipe.importer.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The standalone importer's command line: {@code --flowpipe.importer.<key>=<value>} arguments, {@code --config=<file>}
 * (YAML with the same keys, nested as in the node's YAML or flat; keys outside {@code flowpipe.importer} are ignored,
 * so a node's YAML can be given), {@code --until-caught-up} (exit once everything searchable is imported) and
 * {@code --help}. Later sources win: the file, then system properties, then arguments.
 *
 * @param properties the {@code flowpipe.importer.*} properties, full keys, for {@link ImporterSettings#fromProperties}
 * @param untilCaughtUp stop (exit 0) once caught up, instead of following the source
 * @param help print the usage and exit
 */
public record ImporterArguments(Map<String, Object> properties, boolean untilCaughtUp, boolean help) {

  public static final String USAGE = """
      usage: bin/flowpipe-importer [--config=importer.yaml] [--flowpipe.importer.<key>=<value> ...] [--until-caught-up]
        --flowpipe.importer.source-url=http://127.0.0.1:9200   the store with the stock exporter's raw records (required)
        --flowpipe.importer.source-prefix=zeebe-record          the stock exporter's index prefix
        --flowpipe.importer.target-url=...                      the store the read model goes to (default: the source)
        --flowpipe.importer.index-prefix=flowpipe               the read model's index prefix
        --until-caught-up                                       exit 0 once every searchable raw record is imported
      every key: importer/README.md; exit status 2 on a bad configuration, naming the key""";

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  public ImporterArguments {
    properties = Map.copyOf(properties);
  }

  /**
   * @throws IllegalArgumentException naming the argument, file or key that is wrong
   */
  public static ImporterArguments parse(List<String> args, Map<?, ?> systemProperties) {
    Map<String, Object> properties = new LinkedHashMap<>();
    boolean untilCaughtUp = false;
    boolean help = false;
    for (String arg : args) {
      if (arg.startsWith("--config=")) {
        properties.putAll(fromYaml(Path.of(arg.substring("--config=".length()))));
      }
    }
    systemProperties.forEach((key, value) -> {
      if (key.toString().startsWith(ImporterSettings.PREFIX)) {
        properties.put(key.toString(), value);
      }
    });
    for (String arg : args) {
      if (arg.equals("--until-caught-up")) {
        untilCaughtUp = true;
      } else if (arg.equals("--help") || arg.equals("-h")) {
        help = true;
      } else if (!arg.startsWith("--config=")) {
        int equals = arg.indexOf('=');
        if (!arg.startsWith("--" + ImporterSettings.PREFIX) || equals < 0) {
          throw new IllegalArgumentException("unknown argument '" + arg + "'; settings look like "
              + "--flowpipe.importer.source-url=http://127.0.0.1:9200 (see --help)");
        }
        properties.put(arg.substring(2, equals), arg.substring(equals + 1));
      }
    }
    return new ImporterArguments(properties, untilCaughtUp, help);
  }

  /** The {@code flowpipe.importer.*} keys of a YAML file, flattened to full keys. */
  static Map<String, Object> fromYaml(Path file) {
    Object root;
    try {
      root = YAML.readValue(Files.readString(file), Object.class);
    } catch (IOException e) {
      throw new IllegalArgumentException("--config=" + file + ": cannot read it as YAML: " + e.getMessage(), e);
    }
    Map<String, Object> flat = new LinkedHashMap<>();
    if (root instanceof Map<?, ?> map) {
      flatten("", map, flat);
    } else if (root != null) {
      throw new IllegalArgumentException("--config=" + file + ": expected keys such as flowpipe.importer.source-url");
    }
    flat.keySet().removeIf(key -> !key.startsWith(ImporterSettings.PREFIX));
    return flat;
  }

  private static void flatten(String prefix, Map<?, ?> map, Map<String, Object> into) {
    map.forEach((key, value) -> {
      String name = prefix + key;
      if (value instanceof Map<?, ?> nested) {
        flatten(name + ".", nested, into);
      } else if (value != null) {
        into.put(name, value);
      }
    });
  }
}
