package dev.tandem.watchers;

import java.util.Optional;

/** Which workflow owns the placeholder jobs with a given tag (the scheduling pod watcher knows). */
public interface JobRoutes {
  /** Routes nowhere and is never trusted: without a pod watcher no job is ever an orphan. */
  JobRoutes NONE =
      new JobRoutes() {
        @Override
        public Optional<String> workflowIdForTag(String tag) {
          return Optional.empty();
        }

        @Override
        public boolean routesKnown() {
          return false;
        }
      };

  /** The owning workflow's id, or empty when nothing claims the tag. */
  Optional<String> workflowIdForTag(String tag);

  /**
   * Whether an empty answer of {@link #workflowIdForTag} means "no owner" (the pod cache is listed
   * and its informer runs), rather than "not known yet".
   */
  boolean routesKnown();

  /**
   * Whether some pod waits for Slurm to place it (no node yet, not going away): its placeholder's
   * start should be seen soon, so the poller lists jobs more often ({@code
   * TANDEM_SLURM_PENDING_POLL}).
   */
  default boolean podsWaiting() {
    return false;
  }
}
