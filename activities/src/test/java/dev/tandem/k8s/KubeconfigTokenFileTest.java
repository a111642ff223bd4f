package dev.tandem.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigTokenFileTest {
  @TempDir Path dir;

  private Config kubeconfig(String user) throws Exception {
    Path file = dir.resolve("kubeconfig");
    Files.writeString(
        file,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: https://127.0.0.1:6443}\n"
            + "users:\n- name: u\n  user:\n"
            + user
            + "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n");
    return Config.fromKubeconfig(null, Files.readString(file), file.toString());
  }

  @Test
  void aRelativeTokenFileIsReadBesideTheKubeconfig() throws Exception {
    Files.writeString(dir.resolve("token"), "abc\n");
    KubeconfigTokenFile t = KubeconfigTokenFile.of(kubeconfig("    tokenFile: token\n"));
    assertEquals("abc", t.getToken());
  }

  @Test
  void noTokenFileOrATokenOfItsOwnNeedsNoProvider() throws Exception {
    assertNull(KubeconfigTokenFile.of(kubeconfig("    token: xyz\n    tokenFile: token\n")));
    assertNull(KubeconfigTokenFile.of(kubeconfig("    username: a\n")));
  }

  @Test
  void aTokenFileThatCannotBeReadIsRefusedAtStartWithItsPath() throws Exception {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> KubeconfigTokenFile.of(kubeconfig("    tokenFile: /nonexistent/token\n")));
    assertTrue(e.getMessage().contains("/nonexistent/token"), e.getMessage());
    assertTrue(e.getMessage().contains("user u"), e.getMessage());
  }

  @Test
  void aRotatedTokenIsReadAMinuteAfterTheLastRead() throws Exception {
    Path token = dir.resolve("token");
    Files.writeString(token, "first");
    AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));
    Clock clock =
        new Clock() {
          @Override
          public Instant instant() {
            return now.get();
          }

          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(java.time.ZoneId zone) {
            return this;
          }
        };
    KubeconfigTokenFile t = new KubeconfigTokenFile(token, clock);
    assertEquals("first", t.getToken());
    Files.writeString(token, "second");
    now.set(now.get().plusSeconds(59));
    assertEquals("first", t.getToken());
    now.set(now.get().plusSeconds(1));
    assertEquals("second", t.getToken());
    Files.delete(token);
    now.set(now.get().plusSeconds(60));
    assertEquals("second", t.getToken(), "a file gone for a moment keeps the last token");
  }
}
