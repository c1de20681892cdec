/**
 * Quiet when healthy, from any vantage point: every healthy scenario exits 0 with no warning and no
 * unknown with the host-side probes ON, (1) when Deno refuses every target but 127.0.0.1 and (2)
 * inside an isolated network namespace where the gateway endpoints and API servers have no route
 * (`unshare -n`, where the machine allows it). `--no-network-probes` runs are the scenario matrix.
 */
import assert from "node:assert/strict";
import { healthyScenarios, type VantageRun, vantageRun } from "./vantage.ts";

const HEALTHY = await healthyScenarios();

function assertQuiet(r: VantageRun, where: string): void {
  const ctx = `${r.name} (${where}): exit ${r.code}\n${r.noisy.join("\n")}\n${r.stderr}`;
  assert.ok(r.summary, ctx);
  assert.equal(r.code, 0, ctx);
  assert.deepEqual([r.summary.warn, r.summary.fail, r.summary.unknown], [0, 0, 0], ctx);
}

Deno.test("vantage: there are healthy scenarios to try", () => {
  assert.ok(HEALTHY.length >= 8, HEALTHY.join(", "));
});

for (const name of HEALTHY) {
  Deno.test({
    name: `vantage ${name}: probes on, every target but 127.0.0.1 refused → exit 0, no warning, no unknown`,
    sanitizeResources: false,
    sanitizeOps: false,
    fn: async () => assertQuiet(await vantageRun(name), "--allow-net=127.0.0.1"),
  });
}

/** True when this machine lets us create a network namespace with a working loopback. */
async function canUnshare(): Promise<boolean> {
  try {
    const out = await new Deno.Command("unshare", {
      args: ["-n", "sh", "-c", "ip link set lo up"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "vantage: inside an isolated network namespace (unshare -n), healthy scenarios exit 0",
  ignore: !(await canUnshare()),
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const script = new URL("./vantage.ts", import.meta.url).pathname;
    const deno = Deno.execPath();
    // Two scenarios cover both sides (client and server gateway) and keep the run short.
    const names = ["healthy-consumer", "healthy-provider"].filter((n) => HEALTHY.includes(n));
    const out = await new Deno.Command("unshare", {
      args: [
        "-n",
        "sh",
        "-c",
        `ip link set lo up && exec "${deno}" run --frozen -A "${script}" ${names.join(" ")}`,
      ],
      stdout: "piped",
      stderr: "piped",
      stdin: "null",
    }).output();
    const dec = new TextDecoder();
    assert.ok(out.success, dec.decode(out.stderr));
    const runs: VantageRun[] = dec.decode(out.stdout).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(runs.map((r) => r.name), names);
    for (const r of runs) assertQuiet(r, "unshare -n");
  },
});
