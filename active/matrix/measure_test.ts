import assert from "node:assert/strict";
import { measureCell, parseRow, readTcp, readUdp, runMatrix } from "./measure.ts";
import { MATRIX_ROW_MARKER, tcpConnect, udpDial } from "../commands.ts";
import { EXEC_CONCURRENCY } from "../context.ts";
import { type ExecCall, fakeProbeContext, probePod, ran } from "../../tests/support/probe_run_ctx.ts";
import type { ExecOutcome } from "../../kube/source.ts";
import type { ProbePod } from "../model.ts";

// rome (local) pods 10.244.1.x, milan (remote) pods 10.244.2.x; rome reaches milan at 10.71/16,
// milan reaches rome at 10.68/16 (the base fixtures' Configurations).
const ROME = [1, 2, 3].map((i) => probePod("local", `rome-worker-${i}`, `10.244.1.${10 + i}`));
const MILAN = [1, 2, 3].map((i) => probePod("remote", `milan-worker-${i}`, `10.244.2.${10 + i}`));

/** The pod an address dialled from `side` lands on. */
function podAt(side: "local" | "remote", ip: string): ProbePod | undefined {
  const [a, b, , d] = ip.split(".");
  const pods = side === "local"
    ? (a === "10" && b === "71" ? MILAN : b === "244" ? ROME : [])
    : (a === "10" && b === "68" ? ROME : b === "244" ? MILAN : []);
  return pods.find((p) => p.podIP.split(".")[3] === d);
}

function targetOf(cmd: readonly string[]): { ip: string; proto: "tcp" | "udp" } {
  if (cmd[0] === "/agnhost") return { ip: cmd[2].split(":")[0], proto: "tcp" };
  const url = new URL(cmd[cmd.length - 1]);
  return { ip: url.searchParams.get("host")!, proto: "udp" };
}

/**
 * Expands a row script (commands.ts matrixRow) into its cells' own commands, answers each with
 * `one`, and prints the row's lines like the shell (`<proto> <k> <exit> <output on one line>`).
 */
function rowAware(one: (call: ExecCall) => ExecOutcome) {
  return (call: ExecCall): ExecOutcome => {
    const script = call.command[0] === "sh" ? call.command[2] ?? "" : "";
    const m = new RegExp(`^: ${MATRIX_ROW_MARKER} cells=(\\S*) tcp=(\\d+) udp=(\\d+);`).exec(script);
    if (!m) return one(call);
    const lines: string[] = [];
    for (const spec of m[1].split(",").filter((x) => x)) {
      const [k, ip, protos] = spec.split(":");
      const tries: [string, string[]][] = [];
      if (protos.includes("t")) tries.push(["tcp", tcpConnect(ip, Number(m[2]))]);
      if (protos.includes("u")) tries.push(["udp", udpDial(ip, "hostname", Number(m[3]))]);
      for (const [proto, command] of tries) {
        const out = one({ ...call, command });
        if (!out.ok) return out;
        const text = (out.stdout + out.stderr).replace(/\n+$/, "");
        lines.push(
          `${proto} ${k} ${out.exitCode} ${
            proto === "tcp" ? text.split("\n")[0] : text.replaceAll("\n", " ")
          }`,
        );
      }
    }
    return ran(lines.map((l) => `${l}\n`).join(""));
  };
}

/** A network where `reach(from, to, proto, attempt)` decides; answers like agnhost/netexec. */
function network(reach: (from: string, to: ProbePod, proto: "tcp" | "udp", attempt: number) => boolean) {
  return rowAware(cellNetwork(reach));
}

/** {@link network} for one cell's command. */
function cellNetwork(reach: (from: string, to: ProbePod, proto: "tcp" | "udp", attempt: number) => boolean) {
  const attempts = new Map<string, number>();
  return (call: ExecCall): ExecOutcome => {
    const { ip, proto } = targetOf(call.command);
    const to = podAt(call.side, ip);
    const key = `${call.pod}|${ip}|${proto}`;
    const n = (attempts.get(key) ?? 0) + 1;
    attempts.set(key, n);
    const ok = to !== undefined && reach(call.pod, to, proto, n);
    if (proto === "tcp") return ok ? ran("") : ran("", "TIMEOUT\n", 1);
    return ran(
      ok ? JSON.stringify({ responses: [to!.name], errors: [] }) : JSON.stringify({
        responses: [],
        errors: ["reading from udp connection failed. err:'i/o timeout'"],
      }),
    );
  };
}

Deno.test("matrix runner: healthy 3 + 3 in direct mode measures four grids, all green", async () => {
  const { ctx, calls } = await fakeProbeContext(network(() => true), { localPods: ROME, remotePods: MILAN });
  const run = await runMatrix(ctx);
  assert.equal(run.status, "pass");
  assert.deepEqual(run.matrix!.grids.map((g) => [g.title, g.control]), [
    ["rome-4b2a9e → milan-8d1f03", false],
    ["milan-8d1f03 → rome-4b2a9e", false],
    ["rome-4b2a9e → rome-4b2a9e (control)", true],
    ["milan-8d1f03 → milan-8d1f03 (control)", true],
  ]);
  assert.deepEqual(run.matrix!.grids[0].rows, ["rome-worker-1", "rome-worker-2", "rome-worker-3"]);
  assert.deepEqual(run.matrix!.grids[0].cols, ["milan-worker-1", "milan-worker-2", "milan-worker-3"]);
  // One row exec per source pod (36 cells, TCP + UDP each, inside 6 execs), no retries;
  // remote-sourced rows exec'd through the remote cluster.
  assert.equal(calls.length, 6);
  assert.equal(calls.filter((c) => c.side === "remote").length, 3);
  // Cross-cluster dials use the remapped address.
  assert.ok(
    calls.some((c) => c.pod === "ff-probe-rome-worker-1" && c.command[2].includes("'10.71.2.12:8080'")),
  );
  assert.ok(
    calls.some((c) => c.pod === "ff-probe-milan-worker-1" && c.command[2].includes("'10.68.1.13:8080'")),
  );
});

Deno.test("matrix runner: a black-holed remote node is a red column (and a red row back)", async () => {
  const { ctx } = await fakeProbeContext(
    network((from, to) => to.node !== "milan-worker-2" && from !== "ff-probe-milan-worker-2"),
    { localPods: ROME, remotePods: MILAN },
  );
  const run = await runMatrix(ctx);
  assert.equal(run.status, "fail");
  assert.match(run.summary, /rome-4b2a9e → milan-8d1f03: column milan-worker-2 red/);
  assert.ok(
    run.evidence!.some((l) =>
      /rome-worker-1 → milan-worker-2 .* red: TCP TIMEOUT to 10\.71\.2\.12:8080/.test(l)
    ),
  );
  assert.ok(run.matrix!.reading.some((l) => /column milan-worker-2 red/.test(l)));
});

Deno.test("matrix runner: a cell that passes only on the retry is flaky, never ok", async () => {
  const { ctx, calls } = await fakeProbeContext(
    network((from, to, proto, attempt) =>
      !(from === "ff-probe-rome-worker-1" && to.node === "milan-worker-1" && proto === "tcp" && attempt === 1)
    ),
    { localPods: ROME, remotePods: MILAN },
  );
  const run = await runMatrix(ctx);
  assert.equal(run.status, "warn");
  assert.equal(run.matrix!.grids[0].cells[0][0].tcp, "flaky");
  assert.equal(run.matrix!.grids[0].cells[0][0].udp, "ok");
  // Six rows, and one retry exec from rome-worker-1 carrying only the failed TCP try.
  assert.equal(calls.length, 7);
  assert.match(calls[6].command[2], /cells=0:10\.71\.2\.11:t tcp=3/);
});

Deno.test("matrix runner: an answer from the wrong pod is red; exec failures are unknown, not red", async () => {
  const wrong: ExecOutcome = ran(JSON.stringify({ responses: ["someone-else"], errors: [] }));
  assert.deepEqual(readUdp(wrong, "10.71.2.11:8081", "ff-probe-milan-worker-1"), {
    state: "fail",
    detail: "UDP to 10.71.2.11:8081 answered by someone-else, expected ff-probe-milan-worker-1",
  });
  assert.equal(
    readTcp({ ok: false, reason: "forbidden", message: "pods/exec forbidden" }, "x").state,
    "unknown",
  );
  assert.equal(readTcp(ran("", "REFUSED\n", 1), "10.71.2.11:8080").detail, "TCP REFUSED to 10.71.2.11:8080");
  assert.equal(readTcp(ran("", "exec: /agnhost: not found", 127), "x").state, "unknown");
  assert.equal(readUdp(ran("", "curl: (28) Operation timed out", 28), "x", "p").state, "fail");
  assert.equal(readUdp(ran("", "curl: (7) Failed to connect to 127.0.0.1", 7), "x", "p").state, "unknown");

  const { ctx } = await fakeProbeContext(
    () => ({ ok: false, reason: "forbidden", message: "pods/exec forbidden" }),
    {
      localPods: ROME.slice(0, 1),
      remotePods: MILAN.slice(0, 1),
    },
  );
  const cell = await measureCell(ctx, ROME[0], MILAN[0]);
  assert.deepEqual([cell.tcp, cell.udp], ["unknown", "unknown"]);
  const run = await runMatrix(ctx);
  assert.equal(run.status, "unknown");
});

Deno.test("matrix runner: a fully red 20 + 20 matrix costs execs per source pod, at most EXEC_CONCURRENCY at once", async () => {
  const n = 20;
  const rome = Array.from(
    { length: n },
    (_, i) => probePod("local", `rome-worker-${i + 1}`, `10.244.1.${10 + i}`),
  );
  const milan = Array.from(
    { length: n },
    (_, i) => probePod("remote", `milan-worker-${i + 1}`, `10.244.2.${10 + i}`),
  );
  let inFlight = { local: 0, remote: 0 };
  const peak = { local: 0, remote: 0 };
  let execs = 0;
  // Nothing crosses; the control grids are green.
  const red = rowAware((call) => {
    const { ip } = targetOf(call.command);
    const same = call.side === "local" ? ip.startsWith("10.244.1.") : ip.startsWith("10.244.2.");
    if (targetOf(call.command).proto === "tcp") return same ? ran("") : ran("", "TIMEOUT\n", 1);
    const to = [...rome, ...milan].find((p) => p.podIP === ip);
    return same
      ? ran(JSON.stringify({ responses: [to!.name], errors: [] }))
      : ran("", "curl: (28) timed out", 28);
  });
  const { ctx } = await fakeProbeContext(async (call) => {
    execs++;
    inFlight = { ...inFlight, [call.side]: inFlight[call.side] + 1 };
    peak[call.side] = Math.max(peak[call.side], inFlight[call.side]);
    await new Promise((r) => setTimeout(r, 2));
    inFlight = { ...inFlight, [call.side]: inFlight[call.side] - 1 };
    return red(call);
  }, { localPods: rome, remotePods: milan });
  const run = await runMatrix(ctx);
  assert.equal(run.status, "fail");
  assert.match(run.summary, /everything red/);
  // 2 × 20 × 40 = 1600 cells: one exec per source pod, one retry exec each (its cross cells): 80.
  assert.equal(execs, 4 * n);
  assert.ok(peak.local <= EXEC_CONCURRENCY && peak.remote <= EXEC_CONCURRENCY, JSON.stringify(peak));
  assert.equal(peak.local, EXEC_CONCURRENCY);
});

Deno.test("matrix rows: the row script's lines are read per cell and protocol", () => {
  const rows = parseRow('tcp 1 0 \nudp 0 28 curl: (28) Operation timed out\nudp 1 0 {"responses":["p"]}\n');
  assert.deepEqual(rows.get("tcp:1"), { exit: 0, text: "" });
  assert.deepEqual(rows.get("udp:0"), { exit: 28, text: "curl: (28) Operation timed out" });
  assert.equal(rows.get("udp:1")?.text, '{"responses":["p"]}');
  assert.equal(rows.get("tcp:0"), undefined);
});

Deno.test("matrix runner: offload mode has no reverse grid and labels offloaded columns by pod", async () => {
  const offloaded = [0, 1].map((i): ProbePod => ({
    side: "remote",
    execSide: "local",
    namespace: "flyingfish-probe-test0001",
    name: `ff-probe-liqo-milan-${i}`,
    node: "milan-8d1f03", // the virtual node on rome
    podIP: `10.71.5.${20 + i}`,
  }));
  const { ctx, calls } = await fakeProbeContext(
    rowAware((call) => {
      const { ip, proto } = targetOf(call.command);
      const to = [...ROME, ...offloaded].find((p) =>
        p.podIP === ip || p.podIP.replace("10.71.", "10.244.") === ip
      );
      if (proto === "tcp") return to ? ran("") : ran("", "TIMEOUT", 1);
      return ran(JSON.stringify({ responses: to ? [to.name] : [], errors: [] }));
    }),
    { localPods: ROME, remotePods: offloaded, mode: "offload", withRemote: false },
  );
  const run = await runMatrix(ctx);
  assert.equal(run.status, "pass", run.summary);
  assert.deepEqual(run.matrix!.grids.map((g) => g.control), [false, true, true]);
  assert.deepEqual(run.matrix!.grids[0].cols, ["ff-probe-liqo-milan-0", "ff-probe-liqo-milan-1"]);
  assert.equal(run.matrix!.grids[0].title, "rome-4b2a9e → milan-8d1f03 (offloaded pods)");
  assert.ok(run.evidence!.some((l) => /columns are offloaded pods/.test(l)));
  // Every exec goes through the consumer (the virtual kubelet forwards offloaded pods' execs).
  assert.ok(calls.every((c) => c.side === "local"));
});

Deno.test("matrix runner: out of time, the cells not reached are named (rows that never answered)", async () => {
  const stop = new AbortController();
  const healthy = network(() => true);
  const { ctx } = await fakeProbeContext(async (call) => {
    // rome-worker-3's row hangs (e.g. a kubelet that never streams); the probe's time runs out.
    if (call.pod === "ff-probe-rome-worker-3") await new Promise(() => {});
    return healthy(call);
  }, { localPods: ROME, remotePods: MILAN, signal: stop.signal });
  setTimeout(() => stop.abort(new DOMException("matrix probe timed out after 60 s", "TimeoutError")), 50);
  const run = await runMatrix(ctx);
  assert.equal(run.status, "unknown", run.summary);
  assert.match(
    run.summary,
    /^the probe ran out of time: 6\/36 cells not reached \(rome-worker-3 → milan-worker-1 \(rome-4b2a9e → milan-8d1f03\), /,
  );
});
