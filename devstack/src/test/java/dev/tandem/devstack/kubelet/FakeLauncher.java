package dev.tandem.devstack.kubelet;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/** An in-JVM stand-in for slurmd: records what was launched, exits when the test says so. */
final class FakeLauncher implements ProcessLauncher {
  static final class FakeProcess implements RunningProcess {
    private static final AtomicLong PIDS = new AtomicLong(900_000);
    final ProcessSpec spec;
    final long pid = PIDS.incrementAndGet();
    final CompletableFuture<Integer> exit = new CompletableFuture<>();
    final boolean obeysTerm;
    volatile boolean termed;
    volatile boolean killed;

    FakeProcess(ProcessSpec spec, boolean obeysTerm) {
      this.spec = spec;
      this.obeysTerm = obeysTerm;
    }

    @Override
    public long pid() {
      return pid;
    }

    @Override
    public CompletableFuture<Integer> exit() {
      return exit;
    }

    @Override
    public void terminate() {
      termed = true;
      if (obeysTerm) {
        exit.complete(143);
      }
    }

    @Override
    public void kill() {
      killed = true;
      exit.complete(137);
    }

    void exitWith(int code) {
      exit.complete(code);
    }
  }

  final List<FakeProcess> launched = new CopyOnWriteArrayList<>();
  volatile boolean obeysTerm = true;

  @Override
  public RunningProcess launch(ProcessSpec spec) {
    FakeProcess p = new FakeProcess(spec, obeysTerm);
    launched.add(p);
    return p;
  }

  List<FakeProcess> forPod(String pod) {
    return launched.stream().filter(p -> p.spec.pod().equals(pod)).toList();
  }

  FakeProcess last(String pod) {
    List<FakeProcess> l = forPod(pod);
    return l.isEmpty() ? null : l.get(l.size() - 1);
  }
}
