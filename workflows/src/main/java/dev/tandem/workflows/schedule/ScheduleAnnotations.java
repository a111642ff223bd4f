package dev.tandem.workflows.schedule;

import dev.tandem.workflows.Names;
import java.util.List;

/**
 * The {@code tandem.dev/*} annotations of a pod scheduled through Slurm (docs/architecture.md,
 * "Names"). Users set the first group; Tandem writes the second on the pod when it binds it. Any
 * other {@code tandem.dev/*} annotation is a mistake (most likely a typo) and makes the pod
 * invalid, so that a misspelt partition is reported instead of silently ignored.
 */
public final class ScheduleAnnotations {
  private ScheduleAnnotations() {}

  public static final String PARTITION = Names.PREFIX + "partition";
  public static final String QOS = Names.PREFIX + "qos";
  public static final String ACCOUNT = Names.PREFIX + "account";
  public static final String TIME_LIMIT = Names.PREFIX + "time-limit";
  public static final String RESERVATION = Names.PREFIX + "reservation";
  public static final String EXCLUSIVE = Names.PREFIX + "exclusive";
  public static final String POD_GROUP = Names.PREFIX + "pod-group";
  public static final String GROUP_SIZE = Names.PREFIX + "group-size";

  /** Written by Tandem on binding: the placeholder job id. */
  public static final String JOB_ID = Names.PREFIX + "job-id";

  /** Written by Tandem on binding: the Slurm node the placeholder job runs on. */
  public static final String SLURM_NODE = Names.PREFIX + "slurm-node";

  /** What users may set, in the order messages list them. */
  public static final List<String> USER_SET =
      List.of(PARTITION, QOS, ACCOUNT, TIME_LIMIT, RESERVATION, EXCLUSIVE, POD_GROUP, GROUP_SIZE);

  /** What Tandem writes itself (accepted, ignored as input). */
  public static final List<String> TANDEM_SET = List.of(JOB_ID, SLURM_NODE);
}
