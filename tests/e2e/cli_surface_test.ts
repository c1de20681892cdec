/**
 * The command-line surface of issue 13, through the real CLI: `-o` is a format everywhere (files are
 * `--output-file`), a tool error with `-o json` still prints a document of the published schema,
 * `--only`/`--skip` select checks, `--timeout` bounds the whole run, `version` names the cluster's
 * versions, and `check --snapshot` runs with `--allow-read` alone.
 */
import assert from "node:assert/strict";
import { FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { validateJsonSchema } from "./formats.ts";
import { loadScenario, serveScenario } from "../../fakekube/mod.ts";
import { runCollectCommand } from "../../cli/collect.ts";
import { errorDocumentText } from "../../cli/errors.ts";
import { ErrorDocumentSchema } from "../../report/error_doc.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";
import { sampleReport } from "../support/report_fixture.ts";
import { parse as parseYaml } from "yaml";

const SCENARIO = "healthy-consumer";

/** The shipped schema file, as a program reading `-o json` would use it. */
async function publishedSchemaFile(): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(new URL("../../schema/report.v1.schema.json", import.meta.url)));
}

/** Checks that `id` needs, transitively, and itself. */
function withNeeds(id: string): Set<string> {
  const out = new Set<string>([id]);
  for (const n of CATALOG.find((c) => c.id === id)!.needs) for (const x of withNeeds(n)) out.add(x);
  return out;
}

Deno.test("offline with --allow-read alone: check --snapshot, --only/--skip, report -o markdown never writes a file", async () => {
  const s = await loadScenario(SCENARIO);
  const served = await serveScenario(s, { tls: true, ...FAKE_CLOCK });
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "ff-surface-" }));
  try {
    const kc = `${dir}/kubeconfig`;
    await Deno.writeTextFile(kc, served.kubeconfigYaml(s.run.local));
    const bundle = `${dir}/bundle.tar.gz`;
    const collected = await runCollectCommand({
      kubeconfig: kc,
      outputFile: bundle,
      sampleInterval: SAMPLE_INTERVAL,
      timeout: "1m",
      quiet: true,
    });
    assert.equal(collected, 0);
    await served.close();
    const readOnly = { permissions: ["--allow-read"], env: { NO_COLOR: "" } };
    const inDir = { permissions: ["--allow-read", `--allow-write=${dir}`], cwd: dir };
    const [text, only, skip, md, mdFile, misread] = await Promise.all([
      runCli(["check", "--snapshot", bundle], readOnly),
      runCli(["check", "--snapshot", bundle, "-o", "json", "--only", "tun-02"], readOnly),
      runCli(["check", "--snapshot", bundle, "-o", "json", "--skip", "TUN-04"], readOnly),
      runCli(["report", "--snapshot", bundle, "-o", "markdown"], inDir),
      runCli(["report", "--snapshot", bundle, "--output-file", "r.md"], inDir),
      runCli(["report", "--snapshot", bundle, "-o", "r.html"], inDir),
    ]);

    // No environment variable read needs --allow-env (not even NO_COLOR's absence), no prompt.
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /no failure found/);
    assert.doesNotMatch(text.stderr, /permission|allow-env/i);

    // --only: the named check and what it needs, nothing else; all of them judged.
    assert.equal(only.code, 0, only.stderr);
    const onlyIds = new Set<string>(JSON.parse(only.stdout).results.map((r: { id: string }) => r.id));
    assert.deepEqual([...onlyIds].sort(), [...withNeeds("TUN-02")].sort());

    // --skip: the check and everything that needs it are listed as disabled skips.
    assert.equal(skip.code, 0, skip.stderr);
    const results: { id: string; status: string; skipKind: string | null; summary: string }[] =
      JSON.parse(skip.stdout).results;
    const tun04 = results.filter((r) => r.id === "TUN-04");
    assert.ok(tun04.length > 0);
    for (const r of tun04) {
      assert.deepEqual([r.status, r.skipKind, r.summary], ["skip", "disabled", "skipped (--skip TUN-04)"]);
    }
    const dependents = CATALOG.filter((c) => c.id !== "TUN-04" && withNeeds(c.id).has("TUN-04")).map((c) =>
      c.id
    );
    assert.ok(dependents.includes("TUN-01"));
    for (const r of results.filter((r) => dependents.includes(r.id))) {
      assert.equal(r.skipKind, "disabled", r.id);
      assert.equal(r.summary, "not run: needs TUN-04 (--skip TUN-04)", r.id);
    }
    assert.ok(results.some((r) => r.id === "GW-01" && r.status === "pass"), "the rest still runs");

    // report -o markdown: Markdown on stdout, and no file named "markdown" (or anything else).
    assert.equal(md.code, 0, md.stderr);
    assert.match(md.stdout, /^# FlyingFish report/);
    assert.equal(mdFile.code, 0, mdFile.stderr);
    assert.match(await Deno.readTextFile(`${dir}/r.md`), /^# FlyingFish report/);
    // -o with a file name: exit 3 before anything is read, naming the flag that writes a file.
    assert.equal(misread.code, 3);
    assert.match(
      misread.stderr,
      /argument 'r\.html' is invalid\. Allowed formats are html, markdown\. To write the report to a file, use --output-file r\.html/,
    );
    const files = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(files, ["bundle.tar.gz", "kubeconfig", "r.md"]);
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tool error with -o json prints the error document on stdout, valid against the published schema", async () => {
  const [noFile, noRead] = await Promise.all([
    runCli(["check", "--kubeconfig", "/nonexistent/kubeconfig", "-o", "json"]),
    runCli(["check", "--kubeconfig", "/nonexistent/kubeconfig", "-o", "json"], {
      permissions: ["--allow-env"],
    }),
  ]);
  const schema = await publishedSchemaFile();
  for (const r of [noFile, noRead]) {
    assert.equal(r.code, 3, r.stderr);
    const stderr = r.stderr.trim().split("\n").filter((l) =>
      !/^(connecting to|reading snapshot of) /.test(l)
    );
    assert.equal(stderr.length, 1, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(validateJsonSchema(schema, doc), []);
    ErrorDocumentSchema.parse(doc);
    assert.equal(doc.exitCode, 3);
    assert.equal(doc.error.code, 3);
    assert.equal(`flyingfish: ${doc.error.message}`, stderr[0].replace(/\. Run with .*$/, ""));
  }
  assert.match(JSON.parse(noFile.stdout).error.message, /kubeconfig/);
  assert.equal(JSON.parse(noFile.stdout).error.permission, null);
  assert.equal(JSON.parse(noRead.stdout).error.permission, "--allow-read");
  // The published schema is "a report or an error document", never a mixture.
  assert.deepEqual(validateJsonSchema(schema, JSON.parse(JSON.stringify(sampleReport()))), []);
  assert.notDeepEqual(validateJsonSchema(schema, { ...JSON.parse(noFile.stdout), results: [] }), []);

  // A usage error too, and the same document in YAML; JUnit gets one errored test case.
  const usage = await runCli(["check", "-o", "json", "--no-such-flag"]);
  assert.equal(usage.code, 3);
  assert.equal(JSON.parse(usage.stdout).error.message, "unknown option '--no-such-flag'");
  const yaml = parseYaml(await errorDocumentText("yaml", "a <b> & c", null));
  assert.deepEqual(validateJsonSchema(schema, yaml), []);
  const junit = await errorDocumentText("junit", "a <b> & c", null);
  assert.match(
    junit,
    /<testcase classname="flyingfish" name="run">\n {6}<error type="tool error \(exit 3\)" message="a &#60;b&#62; &#38; c">/,
  );
});

Deno.test({
  name: "--timeout bounds the whole run (exit 3, the error document), whatever --request-timeout allows",
  sanitizeResources: false,
  fn: async () => {
    // An API server that accepts connections and never answers: without a bound the run would hang.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const conns: Deno.Conn[] = [];
    const accepting = (async () => {
      try {
        for await (const c of listener) conns.push(c);
      } catch {
        // closed
      }
    })();
    const dir = await Deno.makeTempDir({ prefix: "ff-hang-" });
    try {
      await Deno.writeTextFile(
        `${dir}/kc`,
        [
          "apiVersion: v1",
          "kind: Config",
          // Plain HTTP: no certificate to load (that would need --allow-sys), just a silent socket.
          `clusters: [{name: hang, cluster: {server: 'http://127.0.0.1:${listener.addr.port}', insecure-skip-tls-verify: true}}]`,
          "users: [{name: u, user: {token: t}}]",
          "contexts: [{name: hang, context: {cluster: hang, user: u}}]",
          "current-context: hang",
        ].join("\n"),
      );
      const started = Date.now();
      const check = (...flags: string[]) =>
        runCli(["check", "--kubeconfig", `${dir}/kc`, "--no-network-probes", "-o", "json", ...flags]);
      const [r, perRequest] = await Promise.all([
        check("--request-timeout", "0", "--timeout", "1500ms"),
        check("--request-timeout", "1s", "--timeout", "0"),
      ]);
      const took = Date.now() - started;
      assert.equal(perRequest.code, 3, perRequest.stderr);
      assert.match(
        perRequest.stderr,
        /cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: .*timed out/,
      );
      assert.equal(r.code, 3, r.stdout + r.stderr);
      assert.ok(took < 15_000, `stopped after ${took} ms`);
      const line = r.stderr.trim().split("\n").at(-1)!;
      assert.match(
        line,
        /^flyingfish: the run did not finish within --timeout 1500ms and was stopped: raise --timeout \(0 = no limit\)/,
      );
      assert.match(JSON.parse(r.stdout).error.message, /did not finish within --timeout 1500ms/);
    } finally {
      listener.close();
      await accepting;
      for (const c of conns) c.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("version: FlyingFish, Deno, the commit of the checkout; with --kubeconfig the server and Liqo versions", async () => {
  const s = await loadScenario(SCENARIO);
  const served = await serveScenario(s, { tls: true });
  const dir = await Deno.makeTempDir({ prefix: "ff-version-" });
  try {
    await Deno.writeTextFile(`${dir}/kc`, served.kubeconfigYaml(s.run.local));
    const [local, cluster] = await Promise.all([
      runCli(["version"], { permissions: ["--allow-read"] }),
      runCli(["version", "--kubeconfig", `${dir}/kc`]),
    ]);
    assert.equal(local.code, 0, local.stderr);
    assert.match(
      local.stdout,
      /^flyingfish \d+\.\d+\.\d+\ndeno {7}\S+ .*\ncommit {5}[0-9a-f]{12}( \(\S+\))?\n$/,
    );
    assert.equal(cluster.code, 0, cluster.stderr);
    assert.match(cluster.stdout, /\nserver {5}v1\.31\.4 \(https:\/\/127\.0\.0\.1:\d+, context rome\)\n/);
    assert.match(cluster.stdout, /\nliqo {7}v\d+\.\d+\.\d+ \(namespace liqo, cluster ID rome-4b2a9e\)\n$/);
  } finally {
    await served.close();
    await Deno.remove(dir, { recursive: true });
  }
});
