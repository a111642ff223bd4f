package dev.tandem.watchers;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every watcher does with its one informer: start it and wait (bounded) for the first listing,
 * count events, tell a periodic resync from a change, report whether it still runs, close it. Its
 * cache keeps objects without {@code managedFields} ({@link LeanItemStore}).
 *
 * <p>A resync pass replays the cache as updates whose old and new objects have the same {@code
 * resourceVersion}; a real change always has a new one. Subclasses get that as a flag instead of
 * computing it three times.
 *
 * <p>An informer stops for good when its first listing fails (later watch and list errors it
 * retries by itself). {@link #running()} is then false, and the {@code Watchers} supervisor closes
 * and starts it again; {@link #start()} never throws for that reason.
 *
 * @param <T> the resource type
 */
public abstract class InformerWatcher<T extends HasMetadata> implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InformerWatcher.class);

  /** How long {@link #start()} waits for the first listing before going on without it. */
  static final Duration SYNC_WAIT = Duration.ofSeconds(60);

  private final String source;
  private final WatcherMetrics metrics;
  private volatile SharedIndexInformer<T> informer;

  /**
   * @param source the {@code source} tag of event metrics ({@code pod}, {@code node}, ...)
   */
  protected InformerWatcher(String source, WatcherMetrics metrics) {
    this.source = source;
    this.metrics = metrics;
  }

  /** A new, not yet started informer (with its indexers, if any). */
  protected abstract SharedIndexInformer<T> newInformer();

  protected void onAdd(T obj) {}

  /**
   * @param resyncPass a periodic replay of the cache (same resourceVersion), not a change
   */
  protected void onUpdate(T old, T obj, boolean resyncPass) {}

  protected void onDelete(T obj, boolean unknownFinalState) {}

  /**
   * Runs once the first listing is in the cache (on the informer's thread if it comes after {@link
   * #start()} gave up waiting).
   */
  protected void onFirstSync() {}

  /**
   * Starts the informer and waits up to {@link #SYNC_WAIT} for its first listing. Also used by the
   * supervisor after {@link #close()} to start a fresh informer.
   */
  public void start() {
    SharedIndexInformer<T> inf = newInformer();
    inf.itemStore(new LeanItemStore<>());
    inf.addEventHandler(
        new ResourceEventHandler<T>() {
          @Override
          public void onAdd(T obj) {
            metrics.event(source, "add");
            InformerWatcher.this.onAdd(obj);
          }

          @Override
          public void onUpdate(T old, T obj) {
            metrics.event(source, "update");
            boolean resyncPass =
                Objects.equals(
                    old.getMetadata().getResourceVersion(), obj.getMetadata().getResourceVersion());
            InformerWatcher.this.onUpdate(old, obj, resyncPass);
          }

          @Override
          public void onDelete(T obj, boolean unknownFinalState) {
            metrics.event(source, "delete");
            InformerWatcher.this.onDelete(obj, unknownFinalState);
          }
        });
    informer = inf;
    CompletableFuture<Void> synced = inf.start().toCompletableFuture();
    synced.thenRun(
        () -> {
          if (informer == inf) {
            onFirstSync();
          }
        });
    try {
      synced.get(SYNC_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException e) {
      log.warn(
          "{} informer's first listing failed ({}); the supervisor restarts it",
          source,
          e.getCause() == null ? e.toString() : e.getCause().toString());
    } catch (TimeoutException e) {
      log.warn(
          "{} informer not synced after {}s; its first listing completes the picture",
          source,
          SYNC_WAIT.toSeconds());
    }
  }

  /** The informer, or null before {@link #start()} and after {@link #close()}. */
  protected SharedIndexInformer<T> informer() {
    return informer;
  }

  /** Whether the informer has listed once (its cache is usable). */
  public boolean synced() {
    SharedIndexInformer<T> inf = informer;
    return inf != null && inf.hasSynced();
  }

  /** False once the informer has stopped for good (the supervisor then restarts it). */
  public boolean running() {
    SharedIndexInformer<T> inf = informer;
    return inf != null && inf.isRunning();
  }

  /** The {@code source} this watcher reports as ({@code pod}, {@code node}, {@code nodeset}). */
  public String source() {
    return source;
  }

  @Override
  public void close() {
    SharedIndexInformer<T> inf = informer;
    informer = null;
    if (inf != null) {
      inf.close();
    }
  }
}
