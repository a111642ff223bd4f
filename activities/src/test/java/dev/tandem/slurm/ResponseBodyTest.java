package dev.tandem.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.sun.net.httpserver.HttpServer;
import dev.tandem.slurm.SlurmTransport.Request;
import dev.tandem.slurm.SlurmTransport.Response;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Answers keep their bytes (parsed without a String copy) and still read as the String did. */
class ResponseBodyTest {
  private static byte[] bytes(int... v) {
    byte[] b = new byte[v.length];
    for (int i = 0; i < v.length; i++) {
      b[i] = (byte) v[i];
    }
    return b;
  }

  @Test
  void onlyStrictUtf8WithoutMarkGoesToTheByteParser() {
    assertTrue(
        Utf8.plain("{\"a\":\"caf\u00e9 \ud83d\ude00 \u0800\"}".getBytes(StandardCharsets.UTF_8)));
    assertTrue(Utf8.plain(new byte[0]));
    assertFalse(Utf8.plain(bytes(0xEF, 0xBB, 0xBF, '{', '}')), "byte order mark");
    assertFalse(Utf8.plain(bytes('{', 0, '}', 0)), "UTF-16 guess");
    assertFalse(Utf8.plain(bytes('"', 0xC0, 0xAF, '"')), "overlong /");
    assertFalse(Utf8.plain(bytes('"', 0xC1, 0xAA, '"')), "overlong j");
    assertFalse(Utf8.plain(bytes('"', 0xE0, 0x80, 0xAF, '"')), "overlong 3-byte");
    assertFalse(Utf8.plain(bytes('"', 0xED, 0xA0, 0x80, '"')), "surrogate");
    assertFalse(Utf8.plain(bytes('"', 0xF4, 0x90, 0x80, 0x80, '"')), "above U+10FFFF");
    assertFalse(Utf8.plain(bytes('"', 0xE2, 0x82)), "cut short");
    assertFalse(Utf8.plain(bytes('"', 0x80, '"')), "lone continuation");
  }

  @Test
  void aByteBodyDecodesOnceAndParsesFromBytesOrText() throws Exception {
    byte[] b = "{\"n\":\"\u00e9\"}".getBytes(StandardCharsets.UTF_8);
    Response r = Response.utf8(200, b);
    assertEquals(b.length, r.utf8Length());
    assertEquals("{\"n\":\"\u00e9\"}", r.body());
    assertEquals(new Response(200, "{\"n\":\"\u00e9\"}"), r);
    JsonFactory f = new JsonFactory();
    for (Response x : new Response[] {r, Response.utf8(200, bytes('"', 0xC3, 0x28, '"'))}) {
      try (JsonParser p = x.jsonParser(f)) {
        assertTrue(p.nextToken() != null);
      }
    }
    try (JsonParser p = Response.utf8(200, bytes('"', 0xC3, 0x28, '"')).jsonParser(f)) {
      assertEquals(JsonToken.VALUE_STRING, p.nextToken());
      assertEquals("\ufffd(", p.getText(), "malformed bytes read as the String has them");
    }
    try (JsonParser p = new Response(304, null).jsonParser(f)) {
      assertEquals(null, p.nextToken());
    }
  }

  @Test
  void aDeclaredCharsetOtherThanUtf8IsDecodedAsBefore() throws Exception {
    assertEquals(StandardCharsets.UTF_8, HttpSlurmTransport.charset("application/json"));
    assertEquals(
        StandardCharsets.UTF_8, HttpSlurmTransport.charset("application/json; charset=nope"));
    assertEquals(
        StandardCharsets.ISO_8859_1,
        HttpSlurmTransport.charset("application/json; Charset=\"ISO-8859-1\""));
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        ex -> {
          byte[] out = "{\"n\":\"\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
          ex.getResponseHeaders().add("Content-Type", "application/json; charset=iso-8859-1");
          ex.sendResponseHeaders(200, out.length);
          ex.getResponseBody().write(out);
          ex.close();
        });
    server.start();
    try (HttpSlurmTransport t =
        new HttpSlurmTransport(
            "http://127.0.0.1:" + server.getAddress().getPort(),
            "root",
            TokenSource.fixed("header.payload.signature-secret"),
            Duration.ofSeconds(2),
            Duration.ofSeconds(5))) {
      assertEquals("{\"n\":\"\u00e9\"}", t.send(Request.get("/x")).body());
    } finally {
      server.stop(0);
    }
  }
}
