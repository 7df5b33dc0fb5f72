package dev.flowpipe.testsupport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * An image tarball as `docker load` reads it: manifest.json naming the config and the layers in order. Unpacked with
 * the system's tar, so that nothing of the build's own reads the image for the test.
 */
public record ImageTarball(Path directory, JsonNode manifest, JsonNode config) {

  public static ImageTarball unpack(Path tarball, Path into) throws IOException, InterruptedException {
    Files.createDirectories(into);
    tar("-xf", tarball.toString(), "-C", into.toString());
    ObjectMapper json = new ObjectMapper();
    JsonNode manifest = json.readTree(into.resolve("manifest.json").toFile()).get(0);
    JsonNode config = json.readTree(into.resolve(manifest.get("Config").asText()).toFile());
    return new ImageTarball(into, manifest, config);
  }

  /** The container's settings: User, Entrypoint, Env, ExposedPorts, Labels, WorkingDir. */
  public JsonNode container() {
    return config.get("config");
  }

  /** A list-valued setting of the container (Entrypoint, Env...), as strings. */
  public List<String> strings(String field) {
    List<String> values = new ArrayList<>();
    container().get(field).forEach(value -> values.add(value.asText()));
    return values;
  }

  public List<Path> layers() {
    List<Path> layers = new ArrayList<>();
    manifest.get("Layers").forEach(layer -> layers.add(directory.resolve(layer.asText())));
    return layers;
  }

  /** Applies the layers in order to an empty folder: the file system a container of this image starts on. */
  public Path rootFileSystem(Path into) throws IOException, InterruptedException {
    Files.createDirectories(into);
    for (Path layer : layers()) {
      tar("-xzf", layer.toString(), "-C", into.toString());
    }
    return into;
  }

  /** The container's environment, {@code Env}, by name. */
  public Map<String, String> environment() {
    Map<String, String> environment = new LinkedHashMap<>();
    strings("Env").forEach(entry -> {
      int equals = entry.indexOf('=');
      environment.put(entry.substring(0, equals), entry.substring(equals + 1));
    });
    return environment;
  }

  /**
   * The command that starts the image's entrypoint on {@code root} (its file system, {@link #rootFileSystem}) as a
   * runtime does, but for the network: a mount and PID namespace of its own, the root a mount point of its own (the
   * JDK looks a file's mount up in /proc/self/mounts), a fresh /proc, the host's /dev, then chroot as the image's
   * user. Needs root (unshare, mount, chroot); the process it starts is unshare, whose child's child is the
   * entrypoint, the first process of its PID namespace. Its environment must have {@link #HOST_PATH} for unshare,
   * sh and chroot.
   */
  public List<String> startCommand(Path root) {
    List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--pid", "--fork", "sh", "-c",
        "root=$1; user=$2; shift 2; mount --bind \"$root\" \"$root\" && mount -t proc proc \"$root/proc\""
            + " && mount --rbind /dev \"$root/dev\" && exec chroot --userspec=\"$user\" \"$root\" \"$@\"",
        "sh", root.toString(), container().get("User").asText()));
    command.addAll(strings("Entrypoint"));
    return command;
  }

  /** The PATH the programs outside the image ({@link #startCommand}) are found on. */
  public static final String HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

  public long compressedBytes() throws IOException {
    long total = 0;
    for (Path layer : layers()) {
      total += Files.size(layer);
    }
    return total;
  }

  private static void tar(String... arguments) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("tar", "--no-same-owner"));
    command.addAll(List.of(arguments));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
      throw new IOException("tar " + String.join(" ", arguments) + " failed: " + output);
    }
  }
}
