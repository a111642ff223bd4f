package dev.tandem.slurm.fake;

import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** One node of the fake cluster: its configuration and what slurmctld knows of it. */
final class FakeNode {
  /** Slurm's base states the fake produces. */
  enum Base {
    IDLE,
    MIXED,
    ALLOCATED,
    DOWN
  }

  /** Slurm's node state flags the fake produces. */
  enum Flag {
    DRAIN,
    NOT_RESPONDING,
    DYNAMIC_NORM
  }

  final String name;
  final int cpus;
  final long memoryMb;
  final List<String> features;
  final String gres;
  final Map<String, Integer> gresTotal;
  final List<String> partitions;
  final boolean dynamic;

  /** DOWN set by an operator (or a lost slurmd past its timeout); allocations decide the rest. */
  boolean down;

  final Set<Flag> flags = EnumSet.noneOf(Flag.class);
  String reason;
  String reasonSetBy;
  Instant reasonChangedAt;
  Instant slurmdStartTime;
  Instant bootTime;
  Instant lastBusy;

  FakeNode(FakeSlurmrestd.NodeSpec spec, List<String> partitions, boolean dynamic, Instant now) {
    this.name = spec.name();
    this.cpus = spec.cpus();
    this.memoryMb = spec.memoryMb();
    this.features = List.copyOf(spec.features());
    this.gres = spec.gres() == null ? "" : spec.gres();
    this.gresTotal = Gres.parse(this.gres);
    this.partitions = List.copyOf(partitions);
    this.dynamic = dynamic;
    if (dynamic) {
      flags.add(Flag.DYNAMIC_NORM);
    }
    this.slurmdStartTime = now;
    this.bootTime = now;
    this.lastBusy = now;
  }

  /** Neither drained, down nor without its slurmd: the scheduler may start jobs here. */
  boolean schedulable() {
    return !down && !flags.contains(Flag.DRAIN) && !flags.contains(Flag.NOT_RESPONDING);
  }

  Base base(int allocCpus, boolean wholeNode) {
    if (down) {
      return Base.DOWN;
    }
    if (allocCpus == 0 && !wholeNode) {
      return Base.IDLE;
    }
    return wholeNode || allocCpus >= cpus ? Base.ALLOCATED : Base.MIXED;
  }

  void setReason(String text, String user, Instant now) {
    reason = text;
    reasonSetBy = user;
    reasonChangedAt = now;
  }
}
