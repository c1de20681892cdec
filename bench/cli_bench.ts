/**
 * Benchmarks (run with `deno task bench`): CLI start-up for --help (the cluster client must not load),
 * and a full check of the healthy consumer against the fake API server over HTTPS.
 */
import { loadScenario, serveScenario } from "../fakekube/mod.ts";

const MAIN = new URL("../cli/main.ts", import.meta.url).pathname;
const ROOT = new URL("../", import.meta.url).pathname;

async function cli(args: string[]): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--frozen",
      "--allow-env",
      "--allow-read",
      "--allow-net=127.0.0.1",
      "--allow-sys",
      MAIN,
      ...args,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).output();
  if (out.code > 2) throw new Error(`flyingfish ${args.join(" ")} exited ${out.code}`);
}

Deno.bench("flyingfish --help (process start to exit)", { group: "startup", baseline: true }, async () => {
  await cli(["--help"]);
});

Deno.bench("flyingfish version", { group: "startup" }, async () => {
  await cli(["version"]);
});

const scenario = await loadScenario("healthy-consumer");
const served = await serveScenario(scenario, { tls: true });
const dir = await Deno.makeTempDir();
await Deno.writeTextFile(`${dir}/kc`, served.kubeconfigYaml(scenario.run.local));
globalThis.addEventListener("unload", () => served.close());

Deno.bench(
  "flyingfish check healthy-consumer (HTTPS, --sample-interval 1s)",
  { n: 5, warmup: 1 },
  async () => {
    await cli([
      "check",
      "--kubeconfig",
      `${dir}/kc`,
      "--no-network-probes",
      "--sample-interval",
      "1s",
      "-o",
      "json",
    ]);
  },
);
