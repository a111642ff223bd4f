package dev.tandem.e2e;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A run's progress in activities, from the workers' {@code tandem_activity_started_total}. Each
 * worker process counts from 0, so the run's cumulative count is the sum of the killed workers'
 * last scraped counts (the base) plus the current worker's. Between two scrapes it also notes which
 * activity types started, to say what was going on at a kill.
 */
final class ActivityCounter {
  private final E2EStack e2e;
  private final Deque<String> recent = new ArrayDeque<>();
  private long base;
  private Map<String, Double> lastStarted = Map.of();
  private Metrics last;

  ActivityCounter(E2EStack e2e) {
    this.e2e = e2e;
  }

  /** Scrapes the current worker; false if none answers (starting, or gone). */
  boolean scrape() throws InterruptedException {
    Metrics m;
    try {
      m = e2e.metrics();
    } catch (IOException e) {
      return false;
    }
    Map<String, Double> started = new TreeMap<>();
    for (Map.Entry<String, Double> e : m.series().entrySet()) {
      if (e.getKey().startsWith(Metrics.ACTIVITIES_STARTED + "{")) {
        started.put(activityOf(e.getKey()), e.getValue());
      }
    }
    synchronized (this) {
      for (Map.Entry<String, Double> e : started.entrySet()) {
        double before = lastStarted.getOrDefault(e.getKey(), 0.0);
        for (int i = 0; i < Math.min(4, e.getValue() - before); i++) {
          recent.addLast(e.getKey());
        }
      }
      while (recent.size() > 4) {
        recent.removeFirst();
      }
      lastStarted = new HashMap<>(started);
      last = m;
    }
    return true;
  }

  /** Activity attempts started by every worker of the run so far (as last scraped). */
  synchronized long cumulative() {
    return base + current();
  }

  /** The current worker has started at least one activity. */
  synchronized boolean madeProgress() {
    return current() >= 1;
  }

  /** Attempts the current worker started and has not finished (as last scraped). */
  synchronized long inFlight() {
    return last == null
        ? 0
        : (long) (last.sum(Metrics.ACTIVITIES_STARTED) - last.sum(Metrics.ACTIVITIES_FINISHED));
  }

  /** The latest activity types started (at most 4), oldest first. */
  synchronized List<String> recent() {
    return List.copyOf(recent);
  }

  /** The current worker is gone: its count becomes part of the base; the next starts from 0. */
  synchronized void workerKilled() {
    base += current();
    last = null;
    lastStarted = Map.of();
    recent.clear();
  }

  private long current() {
    return last == null ? 0 : (long) last.sum(Metrics.ACTIVITIES_STARTED);
  }

  private static String activityOf(String series) {
    int i = series.indexOf("activity=\"");
    if (i < 0) {
      return series;
    }
    int from = i + "activity=\"".length();
    return series.substring(from, series.indexOf('"', from));
  }
}
