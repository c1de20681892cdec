/**
 * `flyingfish report`: the HTML incident report written to a file, loaded in headless Chromium
 * (driven over the DevTools protocol with Deno's own WebSocket: no npm dependency). The page must
 * load with no script error, no console error and no request to anything but the file itself,
 * and show the diagnosis and the annotated data-path diagram.
 *
 * Chromium is looked up as $CHROMIUM, /usr/bin/chromium, chromium-browser, google-chrome; the
 * browser tests are ignored with a message naming what is missing when none is found (the CI
 * script installs Debian's `chromium`). The browser is always killed.
 */
import assert from "node:assert/strict";
import { listScenarios, loadScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS } from "./harness.ts";
import { runScenarioCommand } from "./scenario_cli.ts";
import { externalReferences } from "./formats.ts";
import { sampleReport } from "../support/report_fixture.ts";
import { renderHtml } from "../../render/html.ts";
import { checkMarkup } from "../support/report_fixture.ts";

const HOP_KEYS = [
  "pod-local",
  "node-local",
  "geneve-local",
  "gateway-local",
  "wireguard",
  "gateway-remote",
  "geneve-remote",
  "node-remote",
  "pod-remote",
];

function findChromium(): string | null {
  const candidates = [
    Deno.env.get("CHROMIUM"),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
  ];
  for (const c of candidates) {
    if (!c) continue;
    try {
      if (Deno.statSync(c).isFile) return c;
    } catch {
      // not there
    }
  }
  return null;
}

const CHROMIUM = findChromium();
const NO_CHROMIUM =
  "no Chromium found (set $CHROMIUM or `apt-get install -y chromium`): browser test ignored";
if (!CHROMIUM) console.warn(`report_test: ${NO_CHROMIUM}`);

const DATA_PATH_CHECK = /^(GW|TUN|FAB|CNI|IPAM|REF)-/;

/** The broken scenario the report is made of: gw-lb-pending, else one diagnosed on the data path. */
async function brokenScenario(): Promise<string | null> {
  const names = await listScenarios();
  if (names.includes("gw-lb-pending")) return "gw-lb-pending";
  let any: string | null = null;
  for (const n of names) {
    const d = (await loadScenario(n)).expect.diagnosis;
    if (d && DATA_PATH_CHECK.test(d)) return n;
    any ??= d ? n : null;
  }
  return any;
}
const BROKEN = await brokenScenario();
if (!BROKEN) {
  console.warn("report_test: no scenario with a diagnosis yet: report-from-scenario tests ignored");
}

// ---------------------------------------------------------------------------------------------
// A minimal DevTools protocol client.

interface CdpEvent {
  method: string;
  // deno-lint-ignore no-explicit-any
  params: any;
}

class Cdp {
  readonly events: CdpEvent[] = [];
  #ws: WebSocket;
  #id = 0;
  // deno-lint-ignore no-explicit-any
  #pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  #waiters: { method: string; resolve: (e: CdpEvent) => void }[] = [];

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data));
      if (typeof msg.id === "number") {
        const p = this.#pending.get(msg.id);
        this.#pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`${msg.error.message} (${msg.error.code})`));
        else p?.resolve(msg.result);
        return;
      }
      const ev = { method: msg.method, params: msg.params };
      this.events.push(ev);
      this.#waiters = this.#waiters.filter((w) => {
        if (w.method !== ev.method) return true;
        w.resolve(ev);
        return false;
      });
    };
  }

  static async connect(url: string): Promise<Cdp> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = (e) => reject(new Error(`DevTools websocket: ${(e as ErrorEvent).message ?? e}`));
    });
    return new Cdp(ws);
  }

  // deno-lint-ignore no-explicit-any
  send(method: string, params: Record<string, unknown> = {}): Promise<any> {
    const id = ++this.#id;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  waitFor(method: string, timeoutMs: number): Promise<CdpEvent> {
    const seen = this.events.find((e) => e.method === method);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${method}`)), timeoutMs);
      this.#waiters.push({
        method,
        resolve: (e) => {
          clearTimeout(t);
          resolve(e);
        },
      });
    });
  }

  async close(): Promise<void> {
    if (this.#ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((r) => (this.#ws.onclose = r));
    this.#ws.close();
    await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
  }
}

/** What the page showed and did. */
interface PageResult {
  diagnosis: string;
  diagnosisCheck: string | null;
  hops: { hop: string; status: string }[];
  diagramWidth: number;
  title: string;
  errors: string[];
  externalRequests: string[];
}

async function waitForFile(path: string, timeoutMs: number, child: Deno.ChildProcess): Promise<string> {
  const until = Date.now() + timeoutMs;
  let exited = false;
  child.status.then(() => (exited = true));
  while (Date.now() < until && !exited) {
    try {
      const text = await Deno.readTextFile(path);
      if (text.includes("\n")) return text;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(exited ? "Chromium exited before opening DevTools" : `no ${path} after ${timeoutMs}ms`);
}

/** Loads `file` in headless Chromium and reports what the page showed. Always kills the browser. */
async function loadInChromium(file: string): Promise<PageResult> {
  const profile = await Deno.makeTempDir({ prefix: "ff-chromium-" });
  const child = new Deno.Command(CHROMIUM!, {
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-extensions",
      "--disable-default-apps",
      "--disable-domain-reliability",
      "--metrics-recording-only",
      "--no-proxy-server",
      // Belt and braces: nothing but loopback resolves, so no packet can leave 127.0.0.0/8.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      `--user-data-dir=${profile}`,
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      "about:blank",
    ],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let cdp: Cdp | null = null;
  try {
    const portFile = await waitForFile(`${profile}/DevToolsActivePort`, 20_000, child);
    const port = Number(portFile.split("\n")[0]);
    assert.ok(port > 0, `bad DevToolsActivePort: ${portFile}`);
    const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    const page = targets.find((t: { type: string }) => t.type === "page");
    assert.ok(page?.webSocketDebuggerUrl, `no page target: ${JSON.stringify(targets)}`);
    cdp = await Cdp.connect(page.webSocketDebuggerUrl);
    await Promise.all([
      cdp.send("Runtime.enable"),
      cdp.send("Log.enable"),
      cdp.send("Network.enable"),
      cdp.send("Page.enable"),
    ]);
    const url = new URL(`file://${file}`).href;
    const nav = await cdp.send("Page.navigate", { url });
    assert.ok(!nav.errorText, `navigation failed: ${nav.errorText}`);
    await cdp.waitFor("Page.loadEventFired", 15_000);
    const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
      returnByValue: true,
      expression: `(() => {
        const d = document.querySelector("#diagnosis");
        const svg = document.querySelector("#datapath");
        return {
          diagnosis: d ? d.textContent : "",
          diagnosisCheck: d ? d.getAttribute("data-check") : null,
          hops: svg ? [...svg.querySelectorAll("[data-hop]")].map((g) => ({
            hop: g.getAttribute("data-hop"), status: g.getAttribute("data-status"),
          })) : [],
          diagramWidth: svg ? svg.getBoundingClientRect().width : 0,
          title: document.title,
        };
      })()`,
    });
    assert.ok(!exceptionDetails, `evaluate failed: ${JSON.stringify(exceptionDetails)}`);
    const errors: string[] = [];
    const externalRequests: string[] = [];
    for (const e of cdp.events) {
      if (e.method === "Runtime.exceptionThrown") {
        errors.push(
          `exception: ${
            e.params.exceptionDetails?.exception?.description ?? e.params.exceptionDetails?.text
          }`,
        );
      }
      if (e.method === "Runtime.consoleAPICalled" && e.params.type === "error") {
        errors.push(
          `console.error: ${JSON.stringify(e.params.args?.map((a: { value?: unknown }) => a.value))}`,
        );
      }
      if (e.method === "Log.entryAdded" && e.params.entry?.level === "error") {
        errors.push(`log: ${e.params.entry.text} ${e.params.entry.url ?? ""}`);
      }
      if (e.method === "Network.requestWillBeSent") {
        const u = String(e.params.request?.url ?? "");
        if (!u.startsWith("file:") && !u.startsWith("data:") && u !== "about:blank") externalRequests.push(u);
      }
    }
    return { ...result.value, errors, externalRequests };
  } finally {
    await cdp?.close().catch(() => {});
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.status;
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
}

function assertPage(page: PageResult, diagnosisId: string | null): void {
  assert.deepEqual(page.errors, [], "the page logged errors");
  assert.deepEqual(page.externalRequests, [], "the page requested something other than the file");
  assert.deepEqual(page.hops.map((h) => h.hop), HOP_KEYS, "data-path hops");
  for (const h of page.hops) assert.match(h.status, /^(pass|warn|fail|skip|unknown|none)$/, h.hop);
  assert.ok(page.diagramWidth > 100, `the data-path diagram is rendered (width ${page.diagramWidth})`);
  if (diagnosisId) {
    assert.equal(page.diagnosisCheck, diagnosisId);
    assert.ok(page.diagnosis.includes(diagnosisId), page.diagnosis);
    assert.ok(
      page.hops.some((h) => h.status === "fail"),
      `a hop is marked failed: ${JSON.stringify(page.hops)}`,
    );
  } else {
    assert.match(page.diagnosis, /No failure found/);
  }
}

// ---------------------------------------------------------------------------------------------

Deno.test({
  name: "report: headless Chromium loads the HTML of the sample report (browser driver self-test)",
  ignore: !CHROMIUM,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    try {
      const file = `${dir}/sample.html`;
      await Deno.writeTextFile(file, renderHtml(sampleReport()));
      const page = await loadInChromium(file);
      assertPage(page, "GW-02");
      const gw = page.hops.filter((h) => h.hop.startsWith("gateway"));
      assert.ok(gw.some((h) => h.status === "fail"), JSON.stringify(page.hops));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    `report -o html --output-file r.html on ${
      BROKEN ?? "(no broken scenario yet)"
    }: one self-contained file, ` +
    `diagnosis and data path in a browser`,
  ignore: !BROKEN,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const scenario = await loadScenario(BROKEN!);
    const want = scenario.expect.diagnosis!;
    let html = "";
    let listing: string[] = [];
    const run = await runScenarioCommand(BROKEN!, "report", {
      args: (tmp) => ["-o", "html", "--output-file", `${tmp}/out/r.html`],
      permissions: [...CLI_PERMISSIONS, "--allow-write"],
      before: async (tmp) => await Deno.mkdir(`${tmp}/out`),
      after: async (tmp) => {
        listing = [...Deno.readDirSync(`${tmp}/out`)].map((e) => e.name);
        html = await Deno.readTextFile(`${tmp}/out/r.html`);
        if (CHROMIUM) assertPage(await loadInChromium(`${tmp}/out/r.html`), want);
      },
    });
    assert.equal(run.code, scenario.expect.exitCode, run.stderr);
    assert.equal(run.stdout, "", "the report goes to the file, not stdout");
    assert.match(run.stderr, new RegExp(`wrote html report to .*r\\.html — diagnosis ✗ ${want}`));
    assert.deepEqual(listing, ["r.html"], "exactly one file written");
    assert.match(html, /^<!DOCTYPE html>/);
    assert.deepEqual(checkMarkup(html, true).errors, []);
    assert.deepEqual(externalReferences(html), [], "no external references");
    assert.ok(html.includes(`<section id="diagnosis" class="s-fail" data-check="${want}">`));
    assert.match(html, /<svg id="datapath"/);
  },
});

Deno.test({
  name: "report without --output-file prints the report to stdout; -o markdown gives Markdown",
  ignore: !BROKEN,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const want = (await loadScenario(BROKEN!)).expect.diagnosis!;
    const [html, md] = await Promise.all([
      runScenarioCommand(BROKEN!, "report", { tls: false }),
      runScenarioCommand(BROKEN!, "report", { args: ["-o", "markdown"], tls: false }),
    ]);
    assert.match(html.stdout, /^<!DOCTYPE html>/, html.stderr);
    assert.ok(html.stdout.includes(`data-check="${want}"`));
    assert.match(md.stdout, /^# FlyingFish report/, md.stderr);
    assert.ok(md.stdout.includes("## All Checks — Summary"));
    assert.ok(md.stdout.includes(`**✗ ${want}**`));
  },
});

Deno.test("report --output-file FILE without --allow-write: one line naming --allow-write, exit 3, no cluster touched", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // The kubeconfig does not even exist: the permission is checked before anything else.
    const { runCli } = await import("./harness.ts");
    const r = await runCli(["report", "--kubeconfig", `${dir}/missing`, "--output-file", `${dir}/r.html`]);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.equal(r.stderr.trim().split("\n").length, 1, r.stderr);
    assert.match(
      r.stderr,
      /missing Deno permission --allow-write \(needed to write the report to .*r\.html\)/,
    );
    assert.equal(r.stdout, "");
    await assert.rejects(Deno.stat(`${dir}/r.html`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("report --help lists the cluster flags and the formats", async () => {
  const { runCli } = await import("./harness.ts");
  const r = await runCli(["report", "--help"], { permissions: [] });
  assert.equal(r.code, 0, r.stderr);
  for (
    const f of [
      "-o, --output <format>",
      "-f, --output-file",
      "--kubeconfig",
      "--context",
      "--remote-kubeconfig",
      "--remote-context",
      "--peer",
      "--timeout",
      "--request-timeout",
      "--sample-interval",
      "--no-network-probes",
    ]
  ) assert.ok(r.stdout.includes(f), f);
  assert.match(r.stdout, /choices: "html",\s+"markdown"/);
});
