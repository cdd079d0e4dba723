package org.lockvisor.reproductions.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Drives headless Chromium over the DevTools protocol (a WebSocket, JDK client only) so that a
 * test can do what a reader does on a page: load it, click an element at its on-screen position
 * (real mouse events), type, evaluate expressions, take screenshots, and see every console error
 * and uncaught exception the page produced.
 */
final class DevToolsBrowser implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
  private volatile CompletableFuture<Void> loaded = new CompletableFuture<>();

  private DevToolsBrowser(Process process, WebSocket socket) {
    this.process = process;
    this.socket = socket;
  }

  static DevToolsBrowser start(Path browser, Path workDir) throws Exception {
    Path profile = workDir.resolve("devtools-profile");
    Files.createDirectories(profile);
    Process p = new ProcessBuilder(browser.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
        "--hide-scrollbars", "--no-first-run", "--remote-debugging-port=0", "--user-data-dir=" + profile,
        "--window-size=1200,1600", "about:blank")
        .redirectErrorStream(true).redirectOutput(workDir.resolve("devtools-chromium.log").toFile()).start();
    Path portFile = profile.resolve("DevToolsActivePort");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(portFile) || Files.readAllLines(portFile).isEmpty()) {
      if (System.nanoTime() > deadline || !p.isAlive()) {
        p.destroyForcibly();
        throw new IllegalStateException("chromium did not open its DevTools port: "
            + Files.readString(workDir.resolve("devtools-chromium.log")));
      }
      Thread.sleep(100);
    }
    int port = Integer.parseInt(Files.readAllLines(portFile).get(0).strip());
    HttpClient http = HttpClient.newHttpClient();
    String ws = null;
    while (ws == null) {
      JsonNode targets = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/json/list")).build(), HttpResponse.BodyHandlers.ofString()).body());
      for (JsonNode t : targets) {
        if (t.path("type").asText().equals("page")) {
          ws = t.path("webSocketDebuggerUrl").asText();
          break;
        }
      }
      if (ws == null) {
        if (System.nanoTime() > deadline) {
          p.destroyForcibly();
          throw new IllegalStateException("chromium has no page target");
        }
        Thread.sleep(100);
      }
    }
    Listener listener = new Listener();
    WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(ws), listener).get(30, TimeUnit.SECONDS);
    DevToolsBrowser b = new DevToolsBrowser(p, socket);
    listener.browser = b;
    b.call("Runtime.enable", JSON.createObjectNode());
    b.call("Log.enable", JSON.createObjectNode());
    b.call("Page.enable", JSON.createObjectNode());
    return b;
  }

  private static final class Listener implements WebSocket.Listener {
    volatile DevToolsBrowser browser;
    private final StringBuilder text = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        String message = text.toString();
        text.setLength(0);
        try {
          browser.received(JSON.readTree(message));
        } catch (IOException e) {
          throw new IllegalStateException("bad DevTools message", e);
        }
      }
      webSocket.request(1);
      return null;
    }
  }

  private void received(JsonNode m) {
    if (m.has("id")) {
      CompletableFuture<JsonNode> f = pending.remove(m.get("id").asInt());
      if (f != null) {
        if (m.has("error")) {
          f.completeExceptionally(new IllegalStateException("DevTools error: " + m.get("error")));
        } else {
          f.complete(m.path("result"));
        }
      }
      return;
    }
    String method = m.path("method").asText();
    JsonNode params = m.path("params");
    switch (method) {
      case "Runtime.consoleAPICalled" -> {
        String type = params.path("type").asText();
        if (type.equals("error") || type.equals("warning") || type.equals("assert")) {
          errors.add("console." + type + ": " + params.path("args"));
        }
      }
      case "Runtime.exceptionThrown" -> errors.add("exception: " + params.path("exceptionDetails"));
      case "Log.entryAdded" -> {
        if (params.path("entry").path("level").asText().equals("error")) {
          errors.add("log: " + params.path("entry").path("text").asText());
        }
      }
      case "Page.loadEventFired" -> loaded.complete(null);
      default -> { }
    }
  }

  JsonNode call(String method, ObjectNode params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> f = new CompletableFuture<>();
    pending.put(id, f);
    ObjectNode m = JSON.createObjectNode();
    m.put("id", id);
    m.put("method", method);
    m.set("params", params);
    socket.sendText(JSON.writeValueAsString(m), true).get(30, TimeUnit.SECONDS);
    return f.get(60, TimeUnit.SECONDS);
  }

  /** Loads {@code page} and waits for its load event. */
  void open(Path page) throws Exception {
    loaded = new CompletableFuture<>();
    ObjectNode p = JSON.createObjectNode();
    p.put("url", page.toUri().toString());
    call("Page.navigate", p);
    loaded.get(60, TimeUnit.SECONDS);
  }

  /** The value of a JavaScript expression (JSON-serialisable). */
  JsonNode eval(String expression) throws Exception {
    ObjectNode p = JSON.createObjectNode();
    p.put("expression", expression);
    p.put("returnByValue", true);
    JsonNode r = call("Runtime.evaluate", p);
    if (r.has("exceptionDetails")) {
      throw new IllegalStateException("page threw on [" + expression + "]: " + r.get("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /** Scrolls the first element matching {@code selector} into view and clicks its centre with the mouse. */
  void click(String selector) throws Exception {
    JsonNode box = eval("(function(){var e=document.querySelector(" + JSON.writeValueAsString(selector)
        + ");if(!e)return null;e.scrollIntoView({block:'center'});var r=e.getBoundingClientRect();"
        + "return {x:r.left+r.width/2,y:r.top+r.height/2};})()");
    if (box.isNull() || box.isMissingNode()) {
      throw new IllegalStateException("no element [" + selector + "] to click");
    }
    for (String type : List.of("mouseMoved", "mousePressed", "mouseReleased")) {
      ObjectNode p = JSON.createObjectNode();
      p.put("type", type);
      p.put("x", box.get("x").asDouble());
      p.put("y", box.get("y").asDouble());
      p.put("button", type.equals("mouseMoved") ? "none" : "left");
      p.put("clickCount", type.equals("mouseMoved") ? 0 : 1);
      call("Input.dispatchMouseEvent", p);
    }
  }

  /** Focuses {@code selector} and types {@code text} as key presses would insert it. */
  void type(String selector, String text) throws Exception {
    eval("document.querySelector(" + JSON.writeValueAsString(selector) + ").focus()");
    ObjectNode p = JSON.createObjectNode();
    p.put("text", text);
    call("Input.insertText", p);
  }

  /** A PNG of the viewport, or of {@code selector}'s element when not {@code null}. */
  void screenshot(Path file, String selector) throws Exception {
    ObjectNode p = JSON.createObjectNode();
    p.put("format", "png");
    if (selector != null) {
      JsonNode r = eval("(function(){var e=document.querySelector(" + JSON.writeValueAsString(selector)
          + ");e.scrollIntoView({block:'start'});var r=e.getBoundingClientRect();"
          + "return {x:r.left+window.scrollX,y:r.top+window.scrollY,w:r.width,h:r.height};})()");
      ObjectNode clip = p.putObject("clip");
      clip.put("x", r.get("x").asDouble());
      clip.put("y", r.get("y").asDouble());
      clip.put("width", r.get("w").asDouble());
      clip.put("height", r.get("h").asDouble());
      clip.put("scale", 1);
      p.put("captureBeyondViewport", true);
    }
    JsonNode shot = call("Page.captureScreenshot", p);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, Base64.getDecoder().decode(shot.get("data").asText()));
  }

  /** Console errors and warnings, uncaught exceptions and error log entries seen so far. */
  List<String> errors() {
    return List.copyOf(errors);
  }

  @Override
  public void close() {
    try {
      socket.sendClose(WebSocket.NORMAL_CLOSURE, "").get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // closing anyway
    }
    // Chromium's helpers (renderer, GPU, crash handler) can outlive the browser process and still be
    // writing into the profile when the caller's temporary directory is deleted: end them all, and
    // wait for each, before the directory is let go.
    List<ProcessHandle> helpers = process.descendants().toList();
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
      for (ProcessHandle h : helpers) {
        h.destroy();
        try {
          h.onExit().get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          h.destroyForcibly();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      helpers.forEach(ProcessHandle::destroyForcibly);
    }
  }
}
