/**
 * withSignalCleanup with a scripted signal host: the first signal aborts the body and cleanup
 * still runs; a second one prints the cleanup command and exits 130 at once; the timeout takes the
 * same path; listeners are gone at the end, whatever happened.
 */
import assert from "node:assert/strict";
import {
  REPEAT_GRACE_MS,
  RunStopped,
  secondSignalLine,
  type SignalHost,
  stopSignals,
  withSignalCleanup,
} from "./signals.ts";

type Sig = "SIGINT" | "SIGTERM";

function scriptedHost(): SignalHost & { fire(s: Sig): void; count(): number } {
  const handlers = new Map<Sig, Set<() => void>>();
  return {
    add: (s, h) => void (handlers.get(s) ?? handlers.set(s, new Set()).get(s)!).add(h),
    remove: (s, h) => void handlers.get(s)?.delete(h),
    fire: (s) => [...(handlers.get(s) ?? [])].forEach((h) => h()),
    count: () => [...handlers.values()].reduce((n, s) => n + s.size, 0),
  };
}

const CMD = "flyingfish probe --cleanup --run-id k3x9q2m1 --kubeconfig rome.yaml";

/** A body that waits for its signal, then takes `windDownMs` to wind down (its own cleanup). */
function waitingBody(windDownMs: number, log: string[]): (signal: AbortSignal) => Promise<string> {
  return (signal) =>
    new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        log.push(`body aborted: ${(signal.reason as Error).message}`);
        setTimeout(() => resolve("partial"), windDownMs);
      });
    });
}

Deno.test("signals: a first SIGINT aborts the body, cleanup runs, listeners are removed", async () => {
  const host = scriptedHost();
  const lines: string[] = [];
  const log: string[] = [];
  const run = withSignalCleanup(CMD, waitingBody(10, log), () => {
    log.push("cleanup");
    return Promise.resolve(3);
  }, { host, write: (l) => lines.push(l), exit: () => assert.fail("no exit on a first signal") });
  assert.equal(host.count(), stopSignals().length);
  host.fire("SIGINT");
  const r = await run;
  assert.deepEqual(r, { value: "partial", cleanup: 3, stoppedBy: "SIGINT" });
  assert.deepEqual(log, ["body aborted: interrupted by SIGINT", "cleanup"]);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^interrupted \(SIGINT\): removing the probe objects; press Ctrl-C again/);
  assert.equal(host.count(), 0, "listeners removed");
});

Deno.test("signals: one Ctrl-C delivered twice (terminal + a forwarding parent like deno task) still cleans up", async () => {
  const host = scriptedHost();
  const exits: number[] = [];
  let clock = 1_000;
  let cleaned = false;
  const run = withSignalCleanup(CMD, waitingBody(50, []), () => {
    cleaned = true;
    return Promise.resolve(null);
  }, { host, write: () => {}, exit: (code) => exits.push(code), now: () => clock });
  host.fire("SIGINT");
  clock += 2; // the same interrupt, forwarded
  host.fire("SIGINT");
  clock += REPEAT_GRACE_MS - 10;
  host.fire("SIGTERM");
  const out = await run;
  assert.deepEqual(exits, [], "no exit without cleanup");
  assert.equal(cleaned, true);
  assert.equal(out.stoppedBy, "SIGINT");
});

Deno.test("signals: a second signal prints the cleanup command and exits 130 at once", async () => {
  const host = scriptedHost();
  const lines: string[] = [];
  const exits: number[] = [];
  const log: string[] = [];
  let clock = 0;
  const run = withSignalCleanup(CMD, waitingBody(50, log), () => Promise.resolve(null), {
    host,
    write: (l) => lines.push(l),
    exit: (code) => exits.push(code),
    now: () => clock,
  });
  host.fire("SIGINT");
  clock += REPEAT_GRACE_MS;
  host.fire("SIGINT");
  assert.deepEqual(exits, [130]);
  assert.equal(lines.at(-1), secondSignalLine(CMD));
  assert.equal(
    lines.at(-1),
    "interrupted again: leaving now; remove what is left with: flyingfish probe --cleanup --run-id k3x9q2m1 --kubeconfig rome.yaml",
  );
  await run;
  assert.equal(host.count(), 0);
});

Deno.test({
  name: "signals: SIGTERM takes the same path where Deno supports it",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const host = scriptedHost();
    const run = withSignalCleanup(CMD, waitingBody(0, []), () => Promise.resolve(1), {
      host,
      write: () => {},
      exit: () => assert.fail("no exit"),
    });
    host.fire("SIGTERM");
    assert.equal((await run).stoppedBy, "SIGTERM");
  },
});

Deno.test("signals: the run's timeout aborts the body with a TimeoutError reason; cleanup still runs", async () => {
  const host = scriptedHost();
  const log: string[] = [];
  let reason: unknown = null;
  const r = await withSignalCleanup(
    CMD,
    (signal) =>
      new Promise<string>((resolve) =>
        signal.addEventListener("abort", () => {
          reason = signal.reason;
          resolve("timed out");
        })
      ),
    () => {
      log.push("cleanup");
      return Promise.resolve(0);
    },
    { host, timeoutMs: 30, timeoutLabel: "30ms", write: () => assert.fail("a timeout prints nothing") },
  );
  assert.equal(r.stoppedBy, "timeout");
  assert.ok(reason instanceof RunStopped);
  assert.equal((reason as RunStopped).name, "TimeoutError");
  assert.equal((reason as RunStopped).message, "the run timed out after 30ms");
  assert.deepEqual(log, ["cleanup"]);
  assert.equal(host.count(), 0);
});

Deno.test("signals: a body that throws still gets its cleanup, and its error comes back", async () => {
  const host = scriptedHost();
  let cleaned = false;
  const boom = new Error("fleet failed");
  await assert.rejects(
    withSignalCleanup(CMD, () => Promise.reject(boom), () => {
      cleaned = true;
      return Promise.resolve();
    }, { host }),
    boom,
  );
  assert.equal(cleaned, true);
  assert.equal(host.count(), 0);
});

Deno.test("signals: a body that ends by itself is not stopped", async () => {
  const host = scriptedHost();
  const r = await withSignalCleanup(CMD, () => Promise.resolve(7), () => Promise.resolve("done"), {
    host,
    timeoutMs: 5_000,
  });
  assert.deepEqual(r, { value: 7, cleanup: "done", stoppedBy: null });
  assert.equal(host.count(), 0);
});

Deno.test({
  // SIGTERM: `deno test` itself stops on SIGINT (reporting pending tests); the CLI path is the e2e test's.
  name: "signals: a real SIGTERM sent to this process reaches the listener",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const lines: string[] = [];
    const r = await withSignalCleanup(
      CMD,
      (signal) => {
        setTimeout(() => Deno.kill(Deno.pid, "SIGTERM"), 10);
        // Signal listeners do not keep the event loop alive (a real run waits on its requests).
        const keepAlive = setTimeout(() => {}, 5_000);
        return new Promise<string>((resolve) =>
          signal.addEventListener("abort", () => {
            clearTimeout(keepAlive);
            resolve("stopped");
          })
        );
      },
      () => Promise.resolve(true),
      { write: (l) => lines.push(l), exit: () => assert.fail("no exit on a first signal") },
    );
    assert.deepEqual(r, { value: "stopped", cleanup: true, stoppedBy: "SIGTERM" });
    assert.equal(lines.length, 1);
  },
});
