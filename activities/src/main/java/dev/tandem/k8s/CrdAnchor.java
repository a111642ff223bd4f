package dev.tandem.k8s;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * The uid of the CRD {@code nodesets.tandem.dev}, the anchor every NodeSet dependent carries as its
 * second owner ({@link Owners}). Read from the API and kept for {@link #TTL}: a CRD deleted and
 * created again gets a new uid, and a dependent anchored to the old one would not be protected.
 *
 * <p>Fail closed: when the CRD cannot be read (absent, forbidden, API unreachable) {@link #uid()}
 * throws {@link Unavailable} and the caller must not create the dependent: a pod without its anchor
 * is deleted by the garbage collector at once under a foreground NodeSet deletion, jobs and all.
 */
public final class CrdAnchor {
  /** How long a uid read from the API is used before it is read again. */
  public static final Duration TTL = Duration.ofMinutes(5);

  /** The anchor cannot be read; retrying later may help (RBAC fixed, CRD installed, API back). */
  public static final class Unavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private record Cached(String uid, Instant readAt) {}

  private final KubernetesClient client;
  private final Clock clock;
  private volatile Cached cached;

  public CrdAnchor(KubernetesClient client, Clock clock) {
    this.client = Objects.requireNonNull(client, "client");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The CRD's uid, from the cache when it is younger than {@link #TTL}. */
  public String uid() {
    Cached c = cached;
    Instant now = clock.instant();
    if (c != null && now.isBefore(c.readAt().plus(TTL))) {
      return c.uid();
    }
    String uid = read();
    cached = new Cached(uid, now);
    return uid;
  }

  /** The uid last read, however old, or null: for cheap checks that must not call the API. */
  public String cachedUid() {
    Cached c = cached;
    return c == null ? null : c.uid();
  }

  private String read() {
    CustomResourceDefinition crd;
    try {
      crd = client.apiextensions().v1().customResourceDefinitions().withName(Owners.CRD_NAME).get();
    } catch (KubernetesClientException e) {
      String why =
          e.getCode() == 403
              ? "forbidden: the worker needs get on customresourcedefinitions "
                  + Owners.CRD_NAME
                  + " (docs/install.md)"
              : (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + e.getMessage();
      throw new Unavailable("cannot read CRD " + Owners.CRD_NAME + ": " + why, e);
    }
    if (crd == null || crd.getMetadata() == null || crd.getMetadata().getUid() == null) {
      throw new Unavailable(
          "CRD " + Owners.CRD_NAME + " does not exist: install it (docs/install.md)", null);
    }
    return crd.getMetadata().getUid();
  }
}
