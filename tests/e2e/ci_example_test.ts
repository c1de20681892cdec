/**
 * The README's GitHub Actions example (docs/ci.md, section "CI") works: its `diagnose` step, run with bash
 * against the fake API servers, passes on a healthy peering, fails the job with exit 2 on a broken
 * one, and in both cases writes the HTML report that the upload step (`if: always()`) uploads.
 * The step runs as written, plus `--no-network-probes` (no packet leaves 127.0.0.0/8 in tests) and
 * a short `--sample-interval`.
 */
import assert from "node:assert/strict";
import { parse } from "yaml";
import { z } from "zod";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { FAKE_CLOCK, SAMPLE_INTERVAL } from "./harness.ts";

const REPO = new URL("../../", import.meta.url);

const Step = z.object({
  name: z.string().optional(),
  uses: z.string().optional(),
  if: z.string().optional(),
  run: z.string().optional(),
  with: z.record(z.string(), z.unknown()).optional(),
});
const Workflow = z.object({ jobs: z.record(z.string(), z.object({ steps: z.array(Step) })) });

/** The steps of the workflow in the "CI" section of docs/ci.md. */
async function readmeWorkflowSteps(): Promise<z.infer<typeof Step>[]> {
  const readme = await Deno.readTextFile(new URL("docs/ci.md", REPO));
  const section = readme.split(/^## /m).find((s) => s.startsWith("CI"));
  assert.ok(section, 'docs/ci.md has no "## CI" section');
  const block = section.match(/```yaml\n([\s\S]*?)```/);
  assert.ok(block, 'docs/ci.md "CI" has no YAML block');
  const jobs = Object.values(Workflow.parse(parse(block[1])).jobs);
  assert.equal(jobs.length, 1);
  return jobs[0].steps;
}

/** Runs the `diagnose` step in a work directory holding `flyingfish` (the checkout) and the kubeconfigs. */
async function runDiagnoseStep(
  script: string,
  scenario: string,
): Promise<{ code: number; out: string; dir: string }> {
  const s = await loadScenario(scenario);
  const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
  const dir = await Deno.makeTempDir({ prefix: "ff-ci-example-" });
  try {
    await Deno.symlink(decodeURIComponent(REPO.pathname), `${dir}/flyingfish`);
    await Deno.writeTextFile(`${dir}/consumer.yaml`, served.kubeconfigYaml(s.run.local));
    await Deno.writeTextFile(`${dir}/provider.yaml`, served.kubeconfigYaml(s.run.remote!));
    const step = script.replace(
      "--remote-kubeconfig provider.yaml",
      `--remote-kubeconfig provider.yaml --no-network-probes --sample-interval ${SAMPLE_INTERVAL}`,
    );
    assert.notEqual(step, script, "the diagnose step no longer passes --remote-kubeconfig provider.yaml");
    const out = await new Deno.Command("bash", {
      args: ["-e", "-c", step],
      cwd: dir,
      env: { NO_COLOR: "1", DENO: Deno.execPath() },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, out: dec.decode(out.stdout) + dec.decode(out.stderr), dir };
  } finally {
    await served.close();
  }
}

Deno.test({
  name: "ci example: the README's job gates on the exit code and uploads the HTML report either way",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const steps = await readmeWorkflowSteps();
    const diagnose = steps.find((s) => s.run?.includes("flyingfish/bin/flyingfish report"));
    assert.ok(diagnose?.run, "no step runs flyingfish/bin/flyingfish report");
    const upload = steps.find((s) => s.uses?.startsWith("actions/upload-artifact@"));
    assert.ok(upload, "no upload-artifact step");
    assert.equal(upload.if, "always()", "the report must be uploaded when the diagnosis fails too");
    const artifact = String(upload.with?.path);

    const healthy = await runDiagnoseStep(diagnose.run, "dual-healthy");
    const broken = await runDiagnoseStep(diagnose.run, "dual-tun-mtu-mismatch");
    try {
      assert.equal(healthy.code, 0, healthy.out);
      assert.match(await Deno.readTextFile(`${healthy.dir}/${artifact}`), /^<!doctype html>/i);
      assert.equal(broken.code, 2, broken.out);
      assert.match(broken.out, /::error title=FlyingFish::a check failed/);
      assert.match(await Deno.readTextFile(`${broken.dir}/${artifact}`), /^<!doctype html>/i);
    } finally {
      await Deno.remove(healthy.dir, { recursive: true });
      await Deno.remove(broken.dir, { recursive: true });
    }
  },
});
