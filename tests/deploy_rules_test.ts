/**
 * The alert rules of deploy/monitoring/prometheusrule.yaml, evaluated by Prometheus itself:
 * `promtool check rules` on its `spec.groups`, then `promtool test rules` on the cases of
 * tests/promtool/prometheusrule.test.yaml (the first flap counts, every alert's label set is exactly
 * what its summary names). Needs `promtool` (Debian: `apt-get install prometheus`; .ci/run installs
 * it); without it the test is skipped, saying so.
 */
import assert from "node:assert/strict";
import { parseAllDocuments, stringify } from "yaml";

const RULE = new URL("../deploy/monitoring/prometheusrule.yaml", import.meta.url);
const CASES = new URL("./promtool/prometheusrule.test.yaml", import.meta.url);

/** The promtool binary on PATH, or null. */
async function findPromtool(): Promise<string | null> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":").filter(Boolean)) {
    try {
      if ((await Deno.stat(`${dir}/promtool`)).isFile) return `${dir}/promtool`;
    } catch {
      // not in this directory
    }
  }
  return null;
}

const promtool = await findPromtool();
if (!promtool) {
  console.warn(
    "deploy_rules_test: promtool is not installed (Debian: apt-get install prometheus): the PrometheusRule test is skipped",
  );
}

async function run(cwd: string, ...args: string[]): Promise<{ code: number; out: string }> {
  const o = await new Deno.Command(promtool!, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout) + dec.decode(o.stderr) };
}

Deno.test({
  name: `deploy: promtool checks and unit-tests the PrometheusRule's alerts${
    promtool ? "" : " (skipped: promtool not installed)"
  }`,
  ignore: !promtool,
  fn: async () => {
    const docs = parseAllDocuments(await Deno.readTextFile(RULE)).map((d) => d.toJS());
    const rule = docs.find((d) => d?.kind === "PrometheusRule");
    assert.ok(rule?.spec?.groups?.length, "the PrometheusRule has rule groups");
    const dir = await Deno.makeTempDir({ prefix: "ff-promtool-" });
    try {
      await Deno.writeTextFile(`${dir}/rules.yaml`, stringify({ groups: rule.spec.groups }));
      await Deno.copyFile(CASES, `${dir}/prometheusrule.test.yaml`);
      const check = await run(dir, "check", "rules", "rules.yaml");
      assert.equal(check.code, 0, check.out);
      const test = await run(dir, "test", "rules", "prometheusrule.test.yaml");
      assert.equal(test.code, 0, test.out);
      assert.match(test.out, /SUCCESS/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
