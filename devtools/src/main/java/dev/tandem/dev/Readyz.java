package dev.tandem.dev;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Looks at a worker's {@code /readyz}: 200 is ready; anything else says why not. */
final class Readyz {
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final HttpRequest request;
  private volatile String lastAnswer = "no answer yet";

  Readyz(URI url) {
    this.request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(3)).build();
  }

  /** One look; what it said is kept for {@link #lastAnswer()}. */
  boolean ready() throws InterruptedException {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      lastAnswer = r.body().trim();
      return r.statusCode() == 200;
    } catch (IOException e) {
      lastAnswer = "no answer on " + request.uri();
      return false;
    }
  }

  /** What the last look saw: the endpoint's reason, or that nothing answered. */
  String lastAnswer() {
    return lastAnswer;
  }
}
