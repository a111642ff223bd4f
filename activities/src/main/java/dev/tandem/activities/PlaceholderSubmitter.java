package dev.tandem.activities;

import dev.tandem.slurm.JobSubmission;
import dev.tandem.slurm.PlaceholderJob;
import dev.tandem.slurm.PlaceholderTag;
import dev.tandem.slurm.SlurmClient;
import dev.tandem.slurm.SlurmException;
import dev.tandem.slurm.SlurmJob;
import dev.tandem.slurm.SlurmNotFoundException;
import dev.tandem.slurm.SlurmRejectedException;
import dev.tandem.slurm.SlurmViews;
import dev.tandem.workflows.model.SlurmJobView;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Slurm side of the pod scheduling activities: placeholder jobs found by their tag, submitted,
 * cancelled (docs/slurm-client.md, "Placeholder jobs").
 *
 * <p>Submitting is find-then-submit, so that a retried activity (its first answer lost) never makes
 * a second job:
 *
 * <ol>
 *   <li>Look up the jobs tagged with the placeholder's tag in the worker's {@link PlaceholderIndex}
 *       (shared listings, at most {@link PlaceholderIndex#FRESH} old).
 *   <li>If any of them is not over (waiting, running, requeued, suspended, ending, or in a state
 *       this client does not know: fail closed), return it; with several, the lowest job id (the
 *       first submitted, the one the workflow most likely already knows).
 *   <li>Else, if only ended jobs carry the tag, return the newest of them (highest id) and submit
 *       nothing: for a tag that already had a job, "ended" is the truth the workflow must act on
 *       (evict, report), not a reason to hold Slurm resources again. A new pod has a new uid and so
 *       a new tag; a gang's tag names the group, whose workflow ends with its job.
 *   <li>Else submit, and return the new job as queued (its later states come from the Slurm
 *       watcher).
 * </ol>
 *
 * <p>A pod workflow's first submit ({@link #submitFirst}) skips step 1's listing: no earlier
 * attempt can have made a job for the pod (the workflow decides that from its first task's time,
 * docs/scheduling.md, "Scale"). It still takes what this worker itself knows of the tag, and an
 * activity retry goes through step 1.
 *
 * <p>A refusal is answered in the same words, without asking Slurm, every time this worker is asked
 * again for the same job, tag and request alike (a workflow task that failed after the refusal is
 * run again, and with it the submit): the pod's condition and its event are written by different
 * runs of the task and must say the same thing. Slurm 22.05 also keeps a record of the refused job;
 * another worker finding only that record answers with {@link #refusedAtSubmit}'s words.
 */
final class PlaceholderSubmitter {
  private static final Logger log = LoggerFactory.getLogger(PlaceholderSubmitter.class);

  private final SlurmClient slurm;
  private final Clock clock;
  private final PlaceholderIndex index;

  /** Refusal messages by what was asked (tag and request), the newest {@value #REFUSALS_KEPT}. */
  private final Map<dev.tandem.workflows.schedule.PlaceholderJob, String> refusals =
      Collections.synchronizedMap(
          new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(
                Map.Entry<dev.tandem.workflows.schedule.PlaceholderJob, String> eldest) {
              return size() > REFUSALS_KEPT;
            }
          });

  static final int REFUSALS_KEPT = 1000;

  PlaceholderSubmitter(SlurmClient slurm, Clock clock) {
    this(
        slurm,
        clock,
        new PlaceholderIndex(slurm, clock, PlaceholderIndex.FRESH, PlaceholderIndex.FULL));
  }

  PlaceholderSubmitter(SlurmClient slurm, Clock clock, PlaceholderIndex index) {
    this.slurm = slurm;
    this.clock = clock;
    this.index = index;
  }

  SlurmJobView submit(dev.tandem.workflows.schedule.PlaceholderJob job) {
    String tag = checkedTag(job);
    String what = "submit placeholder " + job.name();
    try {
      repeatRefusal(job);
      Optional<SlurmJobView> existing = existing(what, index.find(tag), job);
      return existing.isPresent() ? existing.get() : submitNow(what, tag, job);
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  /**
   * The workflow's first submit, which no earlier attempt can have made: no listing. Attempt 2 or
   * later of the activity (the first answer may be lost after Slurm took the job) is {@link
   * #submit}. A job this worker already knows for the tag (its own earlier submit, when a workflow
   * task failed after it and is retried here) is returned as in {@link #submit}.
   */
  SlurmJobView submitFirst(dev.tandem.workflows.schedule.PlaceholderJob job, int attempt) {
    if (attempt > 1) {
      return submit(job);
    }
    String tag = checkedTag(job);
    String what = "submit placeholder " + job.name() + " (first)";
    try {
      repeatRefusal(job);
      Optional<SlurmJobView> existing = existing(what, index.known(tag), job);
      return existing.isPresent() ? existing.get() : submitNow(what, tag, job);
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  /** Throws the refusal this worker saw for the same {@code job} again, in the same words. */
  private void repeatRefusal(dev.tandem.workflows.schedule.PlaceholderJob job) {
    String refused = refusals.get(job);
    if (refused != null) {
      throw SlurmFailures.rejected(refused);
    }
  }

  /** Steps 2 and 3: the job a tag already has, if any. */
  private Optional<SlurmJobView> existing(
      String what, List<PlaceholderJob> tagged, dev.tandem.workflows.schedule.PlaceholderJob job) {
    Optional<PlaceholderJob> live =
        tagged.stream().filter(p -> !p.over()).min(Comparator.comparingLong(PlaceholderJob::jobId));
    if (live.isPresent()) {
      log.info("{}: already job {} ({})", what, live.get().jobId(), live.get().state());
      return Optional.of(view(live.get()));
    }
    Optional<PlaceholderJob> ended =
        tagged.stream().max(Comparator.comparingLong(PlaceholderJob::jobId));
    if (ended.isPresent() && refusedAtSubmit(ended.get())) {
      // Slurm 22.05 keeps a record of a submit it refused (FAILED, BadConstraints, never on a
      // node). Found by a retried submit (the refusal's answer, or the task that took it, was
      // lost), it is the same refusal, not a job of the pod that ended: the pod is invalid.
      throw SlurmFailures.rejected(
          "Slurm ended job "
              + ended.get().jobId()
              + " at once (FAILED, BadConstraints): it cannot give what was asked, asking for "
              + asked(job)
              + SlurmFailures.whatToDo(job.nodes() > 1));
    }
    if (ended.isPresent()) {
      log.info(
          "{}: job {} with this tag already ended ({}); not submitting another",
          what,
          ended.get().jobId(),
          ended.get().state());
      return Optional.of(view(ended.get()));
    }
    return Optional.empty();
  }

  /** A tagged job Slurm failed at once because it can never give what the job asks. */
  static boolean refusedAtSubmit(PlaceholderJob j) {
    return "FAILED".equals(j.state())
        && "BadConstraints".equals(j.stateReason())
        && j.nodes().isEmpty();
  }

  /**
   * Step 4: submit, and return the new job as queued. Slurm answered the submit with its id, so the
   * job exists and waits (or has just started): a read back would cost one more request per pod
   * only to say so, and the Slurm watcher reports every later state, which the workflow takes only
   * when it is further along ({@code Observations.newerJob}).
   */
  private SlurmJobView submitNow(
      String what, String tag, dev.tandem.workflows.schedule.PlaceholderJob job) {
    long id;
    try {
      id = slurm.submit(submission(tag, job));
    } catch (SlurmRejectedException e) {
      ApplicationFailure refused = SlurmFailures.refusedSubmit(asked(job), job.nodes() > 1, e);
      refusals.put(job, refused.getOriginalMessage());
      throw refused;
    }
    log.info("{}: submitted job {}", what, id);
    PlaceholderJob queued =
        new PlaceholderJob(
            tag, id, "PENDING", null, List.of(), 0, PlaceholderJob.Phase.WAITING, null, null);
    index.put(queued);
    return view(queued);
  }

  /**
   * What the placeholder asks Slurm for, in the words of a refusal's message: {@code 1 node with
   * 500 CPUs and 256 MiB, partition tandem}. Slurm's refusals do not say which part it could not
   * give (a node with that many CPUs, that partition, ...), so the message shows all of it.
   */
  static String asked(dev.tandem.workflows.schedule.PlaceholderJob job) {
    StringBuilder b = new StringBuilder();
    b.append(job.nodes()).append(job.nodes() == 1 ? " node" : " nodes");
    b.append(" with ").append(job.cpusPerNode()).append(job.cpusPerNode() == 1 ? " CPU" : " CPUs");
    if (job.memoryMbPerNode() > 0) {
      b.append(" and ").append(job.memoryMbPerNode()).append(" MiB");
    }
    if (blankToNull(job.gresPerNode()) != null) {
      b.append(", GRES ").append(job.gresPerNode());
    }
    if (job.nodes() > 1) {
      b.append(" each");
    }
    appendIf(b, "partition", job.partition());
    appendIf(b, "QOS", job.qos());
    appendIf(b, "account", job.account());
    appendIf(b, "reservation", job.reservation());
    if (job.timeLimitMinutes() != null) {
      b.append(", time limit ").append(job.timeLimitMinutes()).append(" min");
    }
    if (job.exclusivity() != null
        && job.exclusivity() != dev.tandem.workflows.schedule.Exclusivity.NONE) {
      b.append(", exclusive=").append(job.exclusivity().name().toLowerCase(Locale.ROOT));
    }
    return b.toString();
  }

  private static void appendIf(StringBuilder b, String what, String value) {
    if (blankToNull(value) != null) {
      b.append(", ").append(what).append(' ').append(value);
    }
  }

  List<SlurmJobView> find(String tag) {
    String what = "find placeholder jobs tagged " + tag;
    checkTag(what, tag);
    try {
      return index.find(tag).stream()
          .sorted(Comparator.comparingLong(PlaceholderJob::jobId))
          .map(this::view)
          .toList();
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  /**
   * Cancels the job and reads it back; a job Slurm no longer lists is GONE. Slurm answers a cancel
   * of a job that already ended (or that it purged) as done, so there is no read first: two
   * requests per cancel, not three. Slurm's cancel carries no reason, so the reason goes to the
   * log.
   */
  SlurmJobView cancel(long id, String reason) {
    String what = "cancel job " + id;
    try {
      slurm.cancel(id, null);
      SlurmJob j = slurm.getJob(id);
      log.info("{} ({}; now {}): {}", what, j.name(), j.state(), reason);
      return SlurmViews.job(j, clock.instant());
    } catch (SlurmNotFoundException e) {
      return gone(id);
    } catch (SlurmException e) {
      throw SlurmFailures.translate(what, e);
    }
  }

  /**
   * Ends the placeholder of a pod that has stopped, without Slurm's {@code KillWait}: a cancel
   * alone keeps the resources held for {@code KillWait} (the placeholder ignores SIGTERM, which is
   * what protects a pod that is still stopping). Here nothing is left to protect, so:
   *
   * <ol>
   *   <li>Send {@link JobSubmission#RELEASE_SIGNAL} to the job: its placeholder exits at once (0)
   *       and Slurm frees its nodes. Slurm refuses a signal to a job that is not running (pending,
   *       ending): that refusal is expected and only logged.
   *   <li>Cancel it as {@link #cancel} does, and read it back. This is what ends a pending job, and
   *       a job whose signal was lost (its batch shell not started yet); it is a no-op for a job
   *       the signal already ended.
   * </ol>
   */
  SlurmJobView release(long id, String reason) {
    try {
      slurm.cancel(id, JobSubmission.RELEASE_SIGNAL);
    } catch (SlurmNotFoundException e) {
      return gone(id);
    } catch (SlurmException e) {
      log.debug("release job {}: the signal was refused ({}), cancelling", id, e.getMessage());
    }
    return cancel(id, "released: " + reason);
  }

  private SlurmJobView gone(long id) {
    return new SlurmJobView(id, null, null, SlurmJobView.GONE, null, List.of(), 0, clock.instant());
  }

  /** The view of a tagged job: name and comment are the tag's (both agree, or it is not tagged). */
  private SlurmJobView view(PlaceholderJob p) {
    return new SlurmJobView(
        p.jobId(),
        PlaceholderTag.jobName(p.podUid()),
        PlaceholderTag.comment(p.podUid()),
        p.state(),
        p.stateReason(),
        p.nodes(),
        p.restartCount(),
        clock.instant());
  }

  /**
   * Every field of the workflow's placeholder, on a tagged no-requeue submission. No node list:
   * Slurm chooses the nodes. {@code requeue} is ignored: a placeholder is never requeued (see
   * {@link PlaceholderTag#submission}).
   */
  static JobSubmission submission(String tag, dev.tandem.workflows.schedule.PlaceholderJob job) {
    if (job.nodes() < 1 || job.cpusPerNode() < 1 || job.cpusPerNode() > Integer.MAX_VALUE) {
      throw SlurmFailures.rejected(
          "placeholder "
              + job.name()
              + " needs at least one node and 1.."
              + Integer.MAX_VALUE
              + " CPUs per node, got "
              + job.nodes()
              + " nodes, "
              + job.cpusPerNode()
              + " CPUs");
    }
    try {
      return PlaceholderTag.submission(tag)
          .comment(job.comment())
          .nodeCount(job.nodes())
          .cpusPerNode((int) job.cpusPerNode())
          .memoryMbPerNode(job.memoryMbPerNode() > 0 ? job.memoryMbPerNode() : null)
          .gresPerNode(blankToNull(job.gresPerNode()))
          .partition(blankToNull(job.partition()))
          .qos(blankToNull(job.qos()))
          .account(blankToNull(job.account()))
          .timeLimitMinutes(job.timeLimitMinutes())
          .reservation(blankToNull(job.reservation()))
          .exclusivity(exclusivity(job.exclusivity()))
          .nice(job.nice())
          .build();
    } catch (IllegalArgumentException e) {
      throw SlurmFailures.rejected("placeholder " + job.name() + ": " + e.getMessage());
    }
  }

  private static JobSubmission.Exclusivity exclusivity(
      dev.tandem.workflows.schedule.Exclusivity e) {
    if (e == null) {
      return JobSubmission.Exclusivity.NONE;
    }
    return switch (e) {
      case NONE -> JobSubmission.Exclusivity.NONE;
      case USER -> JobSubmission.Exclusivity.USER;
      case EXCLUSIVE -> JobSubmission.Exclusivity.EXCLUSIVE;
    };
  }

  /**
   * The tag, checked: a usable uid, and the name and comment the workflow built from it (a job
   * submitted under another name would never be found again by the tag).
   */
  private static String checkedTag(dev.tandem.workflows.schedule.PlaceholderJob job) {
    if (job == null) {
      throw SlurmFailures.rejected("submit placeholder: no job given");
    }
    String tag = job.podUid();
    checkTag("submit placeholder " + job.name(), tag);
    if (!PlaceholderTag.jobName(tag).equals(job.name())
        || !PlaceholderTag.uidOf(job.comment()).equals(Optional.of(tag))
        || job.comment().indexOf('\n') >= 0) {
      throw SlurmFailures.rejected(
          "placeholder name "
              + job.name()
              + " / comment "
              + job.comment()
              + " do not carry the tag "
              + tag
              + " (want "
              + PlaceholderTag.jobName(tag)
              + " / "
              + PlaceholderTag.comment(tag)
              + ")");
    }
    return tag;
  }

  private static void checkTag(String what, String tag) {
    try {
      PlaceholderTag.checkUid(tag);
    } catch (IllegalArgumentException e) {
      throw SlurmFailures.rejected(what + ": " + e.getMessage());
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
