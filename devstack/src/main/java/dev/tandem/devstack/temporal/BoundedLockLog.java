package dev.tandem.devstack.temporal;

import io.temporal.internal.testservice.TestServicesStarter;
import java.lang.reflect.Field;
import java.util.LinkedList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the Java test server's log of time-skipping lock events to its last {@link #KEEP} entries.
 *
 * <p>Why: the test server (temporal-test-server 1.38) records every lock and unlock of its
 * time-skipping timer in a {@code LinkedList} that nothing ever trims, for the message of an
 * "unbalanced lock" error. It takes a lock for every workflow task, activity task and external
 * signal, so the list grows by millions of entries over a long {@code tandem dev} session or a
 * benchmark, and every timer that fires removes its own entry by a scan from the oldest one: at a
 * thousand nodes that scan becomes a large share of the CPU of the JVM that hosts the local
 * Temporal and the local Kubernetes API, which shares the machine with the worker. A real Temporal
 * server has no such list. The test server is built for short unit tests, where the list stays
 * small; {@code tandem dev} runs it for hours.
 *
 * <p>How: {@link #install} replaces the list (a private field, set by reflection once, before the
 * server serves) with this one, which drops its oldest entry past {@link #KEEP}. The lock counting
 * itself is untouched; only the diagnostic history is shorter. An unlock whose entry was dropped
 * finds nothing to remove; this list then answers that it did (the test server would otherwise
 * report an unbalanced unlock that is not one). If a later test server has no such field, nothing
 * is replaced and a warning says so: the stack runs as before, only slower over time.
 */
final class BoundedLockLog extends LinkedList<Object> {
  private static final Logger log = LoggerFactory.getLogger(BoundedLockLog.class);
  private static final long serialVersionUID = 1L;

  /** Enough history for the test server's diagnostics; small enough to scan. */
  static final int KEEP = 256;

  /** Some entry was dropped: a remove that finds nothing may be for a dropped entry. */
  private boolean dropped;

  @Override
  public boolean add(Object e) {
    super.add(e);
    while (size() > KEEP) {
      removeFirst();
      dropped = true;
    }
    return true;
  }

  @Override
  public boolean remove(Object o) {
    return super.remove(o) || dropped;
  }

  /**
   * Replaces the test server's lock event list with a bounded one, keeping its entries. True if it
   * did; false (and a warning) if this test server's timer is not laid out as expected.
   */
  static boolean install(TestServicesStarter services) {
    try {
      Object timer = field(services.getClass(), "selfAdvancingTimer").get(services);
      Field events = field(timer.getClass(), "lockEvents");
      Object current = events.get(timer);
      if (!(current instanceof LinkedList<?> list)) {
        throw new NoSuchFieldException("lockEvents is a " + current.getClass().getName());
      }
      BoundedLockLog bounded = new BoundedLockLog();
      // The timer only touches the list under its own lock; the server serves nobody yet.
      for (Object e : list) {
        bounded.add(e);
      }
      events.set(timer, bounded);
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.warn(
          "cannot bound the local Temporal's lock event log ({}); it grows with every task, and"
              + " the local Temporal gets slower the longer it runs",
          e.toString());
      return false;
    }
  }

  /** The list the test server's timer now uses, for tests; null if none. */
  static Object current(TestServicesStarter services) throws ReflectiveOperationException {
    Object timer = field(services.getClass(), "selfAdvancingTimer").get(services);
    return field(timer.getClass(), "lockEvents").get(timer);
  }

  private static Field field(Class<?> c, String name) throws NoSuchFieldException {
    Field f = c.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }
}
