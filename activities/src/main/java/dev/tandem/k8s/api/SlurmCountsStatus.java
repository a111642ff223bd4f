package dev.tandem.k8s.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** {@code status.slurm}: how many of the NodeSet's nodes are in which Slurm state. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class SlurmCountsStatus {
  @JsonPropertyDescription("Idle, not drained.")
  private Integer idle;

  @JsonPropertyDescription("Allocated or mixed, not drained.")
  private Integer allocated;

  @JsonPropertyDescription("DRAIN flag set, jobs still running.")
  private Integer draining;

  @JsonPropertyDescription("DRAIN flag set, no jobs.")
  private Integer drained;

  @JsonPropertyDescription("Down, not responding, or unknown to Slurm.")
  private Integer down;

  public Integer getIdle() {
    return idle;
  }

  public void setIdle(Integer idle) {
    this.idle = idle;
  }

  public Integer getAllocated() {
    return allocated;
  }

  public void setAllocated(Integer allocated) {
    this.allocated = allocated;
  }

  public Integer getDraining() {
    return draining;
  }

  public void setDraining(Integer draining) {
    this.draining = draining;
  }

  public Integer getDrained() {
    return drained;
  }

  public void setDrained(Integer drained) {
    this.drained = drained;
  }

  public Integer getDown() {
    return down;
  }

  public void setDown(Integer down) {
    this.down = down;
  }
}
