/**
 * `flyingfish collect` + `flyingfish check --snapshot`, end to end through the real CLI:
 * - every scenario (snapshot_matrix.ts, sharded over matrix/shard_<k>_test.ts, in-process): a live
 *   run and a collect against the fake API server, then an offline check of the bundle gives the same
 *   statuses, diagnosis and exit code;
 * - planted credentials (Secrets, kubeconfig, logs, WireGuard private keys) never reach the bundle;
 * - a cluster that forbids secrets and pods/exec still yields a bundle whose manifest says what was
 *   refused, and the offline check marks the affected checks `unknown`;
 * - dual bundles reproduce the [2] checks offline;
 * - permission and format-version errors are one line, exit 3.
 */
import assert from "node:assert/strict";
import { parse, parseAllDocuments } from "yaml";
import { listScenarios, loadScenario, type Scenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, type CliRun, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { assertSameDiagnosis, checkArgs, opts, type Report, withTmp } from "./snapshot_matrix.ts";
import { gunzip, jsonBytes, layout, packBundle, readManifest, unpackBundle } from "../../kube/bundle.ts";
import { PASSIVE_CHECKS as CATALOG } from "../../checks/catalog.ts";

/** Offline runs get read access only: no network, no env, no cluster. */
const OFFLINE_PERMISSIONS = ["--allow-read"];
const dec = new TextDecoder();

interface Captured {
  live: CliRun & { report: Report | null };
  collect: CliRun;
  bundle: string;
  /** The fake servers' bearer tokens (they are kubeconfig credentials: never in the bundle). */
  tokens: string[];
}

function parseReport(r: CliRun): CliRun & { report: Report | null } {
  try {
    return { ...r, report: JSON.parse(r.stdout) };
  } catch {
    return { ...r, report: null };
  }
}

/** Serves a scenario; runs the live check and `collect` against it concurrently; stops the servers. */
async function capture(s: Scenario, dir: string, collectArgs: string[] = []): Promise<Captured> {
  const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK }); // what is compared is the replay, not the transport
  try {
    const local = `${dir}/${s.run.local}.kubeconfig`;
    await Deno.writeTextFile(local, served.kubeconfigYaml(s.run.local));
    const target = ["--kubeconfig", local];
    if (s.run.remote) {
      const remote = `${dir}/${s.run.remote}.kubeconfig`;
      await Deno.writeTextFile(remote, served.kubeconfigYaml(s.run.remote));
      target.push("--remote-kubeconfig", remote);
    }
    const bundle = `${dir}/bundle.tar.gz`;
    const [live, collect] = await Promise.all([
      runCli(["check", ...target, "-o", "json", ...checkArgs(s)]),
      runCli([
        "collect",
        ...target,
        "--output-file",
        bundle,
        "--sample-interval",
        SAMPLE_INTERVAL,
        ...collectArgs,
      ], {
        permissions: [...CLI_PERMISSIONS, `--allow-write=${dir}`],
      }),
    ]);
    const tokens = Object.values(served.clusters).flatMap((c) => (c ? [c.token] : []));
    return { live: parseReport(live), collect, bundle, tokens };
  } finally {
    await served.close();
  }
}

async function offlineCheck(bundle: string, args: string[]): Promise<CliRun & { report: Report | null }> {
  return parseReport(
    await runCli(["check", "--snapshot", bundle, "-o", "json", ...args], {
      permissions: OFFLINE_PERMISSIONS,
    }),
  );
}

/** Every value that must never be in a bundle of the planted-secrets scenario. */
async function plantedValues(s: Scenario): Promise<string[]> {
  const values = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === "string" && v.length >= 12) values.add(v);
  };
  // Secrets of the overlay: every data value but publicKey, raw and decoded, and what a kubeconfig holds.
  const text = await Deno.readTextFile(new URL("rome.objects.yaml", s.dir));
  for (const doc of parseAllDocuments(text)) {
    const o = doc.toJS();
    if (o?.kind !== "Secret") continue;
    add(o.metadata?.annotations?.["kubectl.kubernetes.io/last-applied-configuration"]);
    for (const [k, v] of Object.entries(o.data ?? {})) {
      if (k === "publicKey") continue;
      add(v);
      const decoded = atob(String(v));
      add(decoded);
      if (k === "kubeconfig") {
        const kc = parse(decoded);
        for (const u of kc.users ?? []) {
          add(u.user?.token);
          add(u.user?.["client-key-data"]);
          const pem = atob(u.user?.["client-key-data"] ?? "");
          for (const line of pem.split("\n")) if (!line.startsWith("-----")) add(line);
        }
      }
    }
  }
  // Every WireGuard private key of the base states and of every scenario override.
  const bases = new URL("../../testdata/base/", import.meta.url);
  for await (const e of Deno.readDir(bases)) {
    if (!e.name.endsWith(".wireguard.yaml")) continue;
    const wg = parse(await Deno.readTextFile(new URL(e.name, bases))) ?? {};
    for (const pod of Object.values(wg)) {
      // deno-lint-ignore no-explicit-any
      for (const itf of (pod as any)?.interfaces ?? []) add(itf.privateKey), add(btoa(itf.privateKey));
    }
  }
  return [...values];
}

Deno.test({
  name: "collect: planted credentials never appear in the bundle, byte for byte",
  ...opts,
  fn: () =>
    withTmp("ff-planted-", async (dir) => {
      const s = await loadScenario("collect-planted-secrets");
      const cap = await capture(s, dir);
      assert.equal(cap.collect.code, 0, cap.collect.stderr);
      const planted = [...await plantedValues(s), ...cap.tokens];
      assert.ok(planted.length >= 8, `too few planted values: ${planted.length}`);
      const gz = await Deno.readFile(cap.bundle);
      const tar = dec.decode(await gunzip(gz));
      const files = await unpackBundle(gz);
      for (const v of planted) {
        assert.ok(!tar.includes(v), `planted value found in the archive: ${v.slice(0, 24)}…`);
        for (const [path, data] of files) {
          assert.ok(!dec.decode(data).includes(v), `planted value ${v.slice(0, 24)}… in ${path}`);
        }
      }
      // The kubeconfig itself is never written; secrets keep only publicKey.
      assert.ok(![...files.keys()].some((p) => /kubeconfig/i.test(p.split("/").pop() ?? "")));
      const secrets = JSON.parse(dec.decode(files.get(layout.list("local", "secrets"))!));
      assert.equal(secrets.ok, true);
      for (const sec of secrets.items) {
        assert.deepEqual(Object.keys(sec.data ?? {}).filter((k) => k !== "publicKey"), [], sec.metadata.name);
        assert.equal(sec.stringData, undefined);
        assert.equal(sec.metadata.managedFields, undefined);
        assert.equal(
          sec.metadata.annotations?.["kubectl.kubernetes.io/last-applied-configuration"],
          undefined,
        );
      }
      // What was captured is still there: redacted wg dumps, scrubbed logs with their harmless lines.
      const dumps = [...files].filter(([p]) => p.endsWith("/wg-show-all-dump.json"));
      assert.equal(dumps.length, 1);
      const dump = JSON.parse(dec.decode(dumps[0][1]));
      assert.equal(dump.runs.length, 2);
      assert.match(dump.runs[0].stdout, /\(redacted\)/);
      assert.match(dump.runs[0].stdout, /yWekIEb7O8JoD5KvxJfEeICYekx\+a6stG9\+TRBHm0RI=/, "public key kept");
      const cmLog = dec.decode(
        files.get(
          layout.log("local", "liqo", "liqo-controller-manager-6c8f7d9b5-hx2pq", "controller-manager"),
        )!,
      );
      assert.match(cmLog, /Starting workers/);
      assert.match(cmLog, /token=\(redacted\)/);
      const manifest = readManifest(files);
      assert.equal(manifest.formatVersion, 1);
      assert.ok(manifest.clusters[0].logs.some((l) => l.state === "ok"));
      assert.ok(!JSON.stringify(manifest).includes("token:"));
      // And the bundle still diagnoses like the live run, in `check` and in `report`.
      const off = await offlineCheck(cap.bundle, checkArgs(s));
      assertSameDiagnosis(s.name, cap.live.report, off.report);
      const md = await runCli(["report", "--snapshot", cap.bundle, "--format", "markdown", ...checkArgs(s)], {
        permissions: OFFLINE_PERMISSIONS,
      });
      assert.equal(md.code, 0, md.stderr);
      assert.match(md.stdout, /snapshot/i);
    }),
});

Deno.test({
  name:
    "collect: secrets and pods/exec forbidden — manifest records the refusals; offline checks are unknown",
  ...opts,
  fn: () =>
    withTmp("ff-forbid-", async (dir) => {
      const base = await loadScenario("healthy-consumer");
      const s: Scenario = structuredClone(base);
      s.clusters[s.run.local].forbid = ["secrets", "pods/exec"];
      const cap = await capture(s, dir);
      assert.equal(cap.collect.code, 0, cap.collect.stderr);
      const files = await unpackBundle(await Deno.readFile(cap.bundle));
      const m = readManifest(files);
      const local = m.clusters.find((c) => c.role === "local")!;
      assert.equal(local.kinds.secrets?.state, "forbidden");
      assert.equal(local.kinds.pods?.state, "ok");
      assert.ok(local.exec.length > 0, "the exec attempt is recorded");
      for (const e of local.exec) {
        assert.equal(e.state, "refused");
        assert.match(e.reason ?? "", /forbidden/);
      }
      assert.ok(local.logs.some((l) => l.state === "ok"), "logs are still collected");
      const off = await offlineCheck(cap.bundle, checkArgs(s));
      assert.ok(off.report, off.stderr);
      assertSameDiagnosis("forbidden", cap.live.report, off.report);
      const status = (id: string): string[] =>
        off.report.results.filter((r: Report) => r.id === id).map((r: Report) => r.status);
      // exec refused: TUN-04 cannot compare the live keys (unknown), and the live readings it gates
      // say "blocked by TUN-04 (unknown)" instead of repeating the refusal.
      assert.deepEqual(status("TUN-04"), ["unknown"], "TUN-04");
      for (const id of ["TUN-02", "TUN-03"]) assert.deepEqual(status(id), ["skip"], id);
      // Secrets are an optional read (TUN-04 in dual mode): the refusal is replayed as such, not as empty.
      const stored = JSON.parse(dec.decode(files.get(layout.list("local", "secrets"))!));
      assert.deepEqual([stored.ok, stored.reason], [false, "forbidden"]);
      const { openSnapshot } = await import("../../kube/snapshot.ts");
      const snap = await openSnapshot(cap.bundle);
      const { KINDS } = await import("../../kube/kinds.ts");
      const replay = await snap.local.list(KINDS.secrets);
      assert.equal(replay.ok, false);
      assert.equal(!replay.ok && replay.reason, "forbidden");
    }),
});

Deno.test({
  name: "collect: a dual bundle reproduces the [2] checks offline",
  ...opts,
  fn: async () => {
    const dual = (await listScenarios()).filter((n) => n.startsWith("dual-"));
    assert.ok(dual.length > 0, "no dual-* scenario");
    const dualIds = new Set(CATALOG.filter((c) => c.scope === "dual").map((c) => c.id));
    const preferred = ["dual-healthy", "dual-tun-mtu-mismatch"].filter((n) => dual.includes(n));
    for (const name of preferred.length ? preferred : dual.slice(0, 2)) {
      await withTmp(`ff-dual-${name}-`, async (dir) => {
        const s = await loadScenario(name);
        const cap = await capture(s, dir);
        assert.equal(cap.collect.code, 0, cap.collect.stderr);
        const m = readManifest(await unpackBundle(await Deno.readFile(cap.bundle)));
        assert.deepEqual(m.clusters.map((c) => c.role), ["local", "remote"]);
        const off = await offlineCheck(cap.bundle, checkArgs(s));
        assert.equal(off.report.clusters.length, 2, `${name}: both clusters in the offline report`);
        const offDual = off.report.results.filter((r: Report) => dualIds.has(r.id));
        assert.ok(offDual.length > 0, `${name}: no [2] check ran offline`);
        assert.ok(
          offDual.some((r: Report) => r.status !== "skip" && r.status !== "unknown"),
          `${name}: [2] judged`,
        );
        assertSameDiagnosis(name, cap.live.report, off.report);
      });
    }
  },
});

Deno.test({
  name: "collect --redact-ips: addresses pseudonymised (loopback kept) and the bundle still checks offline",
  ...opts,
  fn: () =>
    withTmp("ff-ips-", async (dir) => {
      const s = await loadScenario("healthy-consumer");
      const cap = await capture(s, dir, ["--redact-ips"]);
      assert.equal(cap.collect.code, 0, cap.collect.stderr);
      const files = await unpackBundle(await Deno.readFile(cap.bundle));
      const all = [...files.values()].map((d) => dec.decode(d)).join("\n");
      assert.ok(!all.includes("203.0.113.50"), "the public gateway endpoint is pseudonymised");
      assert.match(all, /https?:\/\/127\.0\.0\.1:\d+/, "loopback server URL kept");
      const m = readManifest(files);
      assert.equal(m.options.redactIps, true);
      assert.ok(m.redaction.some((r) => /prefix-preserving/.test(r)));
      const off = await offlineCheck(cap.bundle, checkArgs(s));
      assert.ok(off.report, off.stderr);
      assert.notEqual(off.code, 3);
    }),
});

Deno.test({
  name: "collect without --allow-write: one line naming --allow-write, exit 3",
  ...opts,
  fn: async () => {
    const r = await runCli(["collect", "--kubeconfig", "/nonexistent", "-f", "/tmp/ff-never.tar.gz"]);
    assert.equal(r.code, 3);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /--allow-write/);
  },
});

Deno.test({
  name: "check --snapshot: newer bundle format, missing file, and conflicting flags are one-line tool errors",
  ...opts,
  fn: () =>
    withTmp("ff-fmt-", async (dir) => {
      const path = `${dir}/v2.tar.gz`;
      await Deno.writeFile(
        path,
        await packBundle([{ path: layout.manifest, data: jsonBytes({ formatVersion: 2 }) }]),
      );
      const r = await runCli(["check", "--snapshot", path], { permissions: OFFLINE_PERMISSIONS });
      assert.equal(r.code, 3);
      assert.equal(
        r.stderr.trim(),
        "flyingfish: bundle format 2 is newer than this FlyingFish understands (1); upgrade FlyingFish",
      );
      const missing = await runCli(["check", "--snapshot", `${dir}/nope.tar.gz`], {
        permissions: OFFLINE_PERMISSIONS,
      });
      assert.equal(missing.code, 3);
      assert.match(missing.stderr.trim(), /^flyingfish: cannot read bundle .*nope\.tar\.gz: no such file$/);
      const both = await runCli(["check", "--snapshot", path, "--kubeconfig", "x"], {
        permissions: OFFLINE_PERMISSIONS,
      });
      assert.equal(both.code, 3);
      assert.match(both.stderr, /cannot be combined with --kubeconfig/);
    }),
});
