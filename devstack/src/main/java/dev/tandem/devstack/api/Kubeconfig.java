package dev.tandem.devstack.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** A kubeconfig for the local API: plain HTTP on 127.0.0.1, no credentials, namespace default. */
final class Kubeconfig {
  private Kubeconfig() {}

  static final String NAME = "tandem-local";

  static String render(String server) {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: " + NAME,
        "  cluster:",
        "    server: " + server,
        "contexts:",
        "- name: " + NAME,
        "  context:",
        "    cluster: " + NAME,
        "    user: " + NAME,
        "    namespace: default",
        "current-context: " + NAME,
        "users:",
        "- name: " + NAME,
        "  user: {}",
        "preferences: {}",
        "");
  }

  static Path write(Path file, String server) throws IOException {
    Path abs = file.toAbsolutePath();
    if (abs.getParent() != null) {
      Files.createDirectories(abs.getParent());
    }
    Path tmp = Files.createTempFile(abs.getParent(), ".kubeconfig", ".tmp");
    try {
      Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      Files.writeString(tmp, render(server), StandardCharsets.UTF_8);
      Files.move(
          tmp,
          abs,
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return abs;
  }
}
