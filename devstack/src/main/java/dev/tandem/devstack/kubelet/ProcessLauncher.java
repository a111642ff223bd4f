package dev.tandem.devstack.kubelet;

import java.io.IOException;

/** Starts container processes; pluggable so tests can run {@code sleep} instead of slurmd. */
@FunctionalInterface
public interface ProcessLauncher {
  RunningProcess launch(ProcessSpec spec) throws IOException;
}
