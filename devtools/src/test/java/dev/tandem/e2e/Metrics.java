package dev.tandem.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** One scrape of a worker's /metrics: {@code name{labels}} to value. */
record Metrics(Map<String, Double> series) {
  static final String ACTIVITIES_STARTED = "tandem_activity_started_total";
  static final String ACTIVITIES_FINISHED = "tandem_activity_finished_total";

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Scrapes {@code url}; an IOException when nothing answers (e.g. the worker is restarting). */
  static Metrics scrape(URI url) throws IOException, InterruptedException {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IOException(url + " answered " + r.statusCode());
    }
    return parse(r.body());
  }

  static Metrics parse(String text) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int sp = line.lastIndexOf(' ');
      m.put(line.substring(0, sp).trim(), Double.parseDouble(line.substring(sp + 1)));
    }
    return new Metrics(Map.copyOf(m));
  }

  /** The sum over every label set of {@code name} (0 when absent). */
  double sum(String name) {
    return series.entrySet().stream()
        .filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
        .mapToDouble(Map.Entry::getValue)
        .sum();
  }

  /** The value of one series, e.g. {@code tandem_slurm_up}; 0 when absent. */
  double value(String nameWithLabels) {
    return series.getOrDefault(nameWithLabels, 0.0);
  }
}
