import assert from "node:assert/strict";
import type { ClusterSource, LogOutcome, LogRequest } from "../kube/source.ts";
import { cutLine, logMessage, readContainerLogs, relevantLogLines } from "./logs.ts";

Deno.test("relevantLogLines keeps the last 5 error-like lines, else the last 3 lines", () => {
  const errs = Array.from({ length: 8 }, (_, i) => `E1130 02:00:0${i}.000000 1 x.go:1] failed step ${i}`);
  const r = relevantLogLines(["I1130 ok", ...errs, "I1130 retrying"].join("\n"));
  assert.equal(r.matched, true);
  assert.equal(r.lines.length, 5);
  assert.match(r.lines[4], /failed step 7/);
  const plain = relevantLogLines("a\nb\nc\nd\n\n");
  assert.deepEqual(plain, { lines: ["b", "c", "d"], matched: false, total: 4 });
  assert.equal(relevantLogLines("panic: runtime error: index out of range").matched, true);
  assert.equal(relevantLogLines("level=fatal msg=x").matched, true);
  assert.equal(relevantLogLines("Starting workers").matched, false);
});

Deno.test("long lines are cut and klog headers stripped for summaries", () => {
  assert.equal(cutLine("x".repeat(300)).length, 200);
  assert.ok(cutLine("x".repeat(300)).endsWith("…"));
  assert.equal(
    logMessage("E1130 02:25:49.030118       1 main.go:201] failed to initialize the IPAM"),
    "failed to initialize the IPAM",
  );
  assert.equal(
    logMessage("2026-11-30T02:25:49Z ERROR cannot create wireguard interface"),
    "cannot create wireguard interface",
  );
  assert.equal(logMessage("plain"), "plain");
});

function src(answer: (req: LogRequest) => LogOutcome): ClusterSource {
  return {
    endpoint: { context: "c", server: "s" },
    now: () => new Date(),
    isSnapshot: false,
    list: () => Promise.resolve({ ok: false, reason: "error", message: "" }),
    discovery: () => Promise.resolve({ ok: false, reason: "error", message: "" }),
    exec: () => Promise.resolve({ ok: false, reason: "error", message: "" }),
    logs: (_n, _p, _c, req) => Promise.resolve(answer(req ?? {})),
    close: () => Promise.resolve(),
  };
}

Deno.test("readContainerLogs falls back to the current log when there is no previous one", async () => {
  const ev = await readContainerLogs(
    src((req) =>
      req.previous
        ? { ok: false, reason: "error", message: "previous terminated container not found" }
        : { ok: true, text: "error: boom\n", previous: false, via: "api" }
    ),
    "ns",
    "p",
    "c",
    { previous: true },
  );
  assert.ok(ev.ok);
  assert.equal(ev.ok && ev.previous, false);
  assert.deepEqual(ev.ok && ev.lines, ["error: boom"]);
});

Deno.test("readContainerLogs passes a forbidden read on with the missing permission", async () => {
  const ev = await readContainerLogs(
    src(() => ({
      ok: false,
      reason: "forbidden",
      message: "missing permission: get pods/log in namespace ns",
    })),
    "ns",
    "p",
    "c",
    { previous: true },
  );
  assert.ok(!ev.ok);
  assert.equal(!ev.ok && ev.reason, "forbidden");
  assert.match(!ev.ok ? ev.message : "", /get pods\/log in namespace ns/);
});
