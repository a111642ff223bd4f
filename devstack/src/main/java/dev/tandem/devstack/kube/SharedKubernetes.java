package dev.tandem.devstack.kube;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One real control plane for every test class of this JVM that needs one: started by the first,
 * stopped when the JVM exits. Each test class uses names of its own, so they do not meet.
 */
public final class SharedKubernetes {
  private static LocalKubernetes kube;

  private SharedKubernetes() {}

  public static synchronized LocalKubernetes get() {
    if (kube == null) {
      try {
        kube = LocalKubernetes.startTemporary();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      LocalKubernetes started = kube;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close, "local-kubernetes-stop"));
    }
    return kube;
  }
}
