/**
 * `flyingfish collect` keeps what the checks read and nothing a user would not share, end to end
 * through the real CLI against the fake API server: credentials planted in every place a cluster
 * holds them (ConfigMap data, container args and env, a DATABASE_URL, free-text annotations, Event
 * messages, logs, a PEM private key under a Secret key named `publicKey`, workloads outside Liqo's
 * namespaces) never reach the extracted bundle, nor any `check --snapshot` output format, nor the
 * HTML/Markdown report; the manifest counts what was scrubbed and the offline diagnosis still equals
 * the live one.
 */
import assert from "node:assert/strict";
import { loadScenario, type Scenario, serveScenario } from "../../fakekube/mod.ts";
import { CLI_PERMISSIONS, FAKE_CLOCK, runCli, SAMPLE_INTERVAL } from "./harness.ts";
import { assertSameDiagnosis, checkArgs, opts, withTmp } from "./snapshot_matrix.ts";
import { gunzip, layout, readManifest, unpackBundle } from "../../kube/bundle.ts";

const dec = new TextDecoder();
const TENANT = "liqo-tenant-milan-8d1f03";

/** Every planted credential: none may appear anywhere downstream of `collect`. */
const M = {
  cmPassword: "ffplant-cm-password-9b1e77",
  liqoCmSecret: "ffplant-liqo-cm-secret-4c2d19",
  stripe: "sk_live_51FfPlantedStripeKeyAbCdEfGhIjKl",
  argToken: "ffplant-arg-token-3e8a55c0",
  argSpaced: "ffplant-arg-spaced-7d1c44",
  dbPassword: "ffplantDbPassw0rd77",
  envApiKey: "ffplant-env-apikey-0a9d3b",
  annotation: "ffplant-annotation-password-61f0",
  nsAnnotation: "ffplant-namespace-note-8e2b",
  bearer: "ffplantBearerTokenZ9y8x7w6v5u4",
  aws: "AKIAZFFPLANTED7Q3XJ4",
  awsSecret: "FfPlantAwsSecretKey0123456789abcdefGHIJ",
  github: "ghp_FfPlantedGithubToken0123456789abcdEF",
  pemBody: "MIIEffPlantedOpenSshPrivateKeyBodyLine0123456789",
  pemUnderPublicKey: "MHcCAQEEIFfPlantedEcPrivateKeyUnderPublicKeyName",
  jwtSig: "ffplantJwtSignature_0123456789",
  payments: "ffplant-payments-only-1f2e3d",
} as const;

const JWT = `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmZnBsYW50In0.${M.jwtSig}`;
const PEM_EC = `-----BEGIN EC PRIVATE KEY-----\n${M.pemUnderPublicKey}\n-----END EC PRIVATE KEY-----\n`;

function container(name: string): Record<string, unknown> {
  return {
    name,
    image: "ghcr.io/example/app:v1.0.0",
    command: ["/app/server"],
    args: [
      `--stripe-key=${M.stripe}`,
      `--token=${M.argToken}`,
      "--api-secret",
      M.argSpaced,
      "--listen-port=8080",
      "--verbose",
    ],
    env: [
      { name: "DATABASE_URL", value: `postgres://app:${M.dbPassword}@db.payments:5432/app` },
      { name: "API_KEY", value: M.envApiKey },
      { name: "LOG_LEVEL", value: "info" },
      { name: "PORT", value: "8080" },
    ],
  };
}

/** Objects planted on rome, in Liqo's namespaces (kept, redacted) and outside them (left out). */
function plantedObjects(): Record<string, unknown>[] {
  const podMeta = (ns: string, name: string) => ({
    name,
    namespace: ns,
    uid: crypto.randomUUID(),
    creationTimestamp: "2026-11-30T02:10:00Z",
    annotations: {
      "example.com/notes": `db password is ${M.annotation}`,
      "liqo.io/debug-token": JWT,
    },
  });
  const pod = (ns: string, name: string) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: podMeta(ns, name),
    spec: { nodeName: "rome-worker-1", containers: [container("app")] },
    status: { phase: "Running" },
  });
  return [
    {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: "payments",
        uid: crypto.randomUUID(),
        creationTimestamp: "2026-11-30T02:00:00Z",
        annotations: { "example.com/owner-notes": `root password is ${M.nsAnnotation}` },
      },
      status: { phase: "Active" },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "app-config", namespace: "payments", uid: crypto.randomUUID() },
      data: { password: M.cmPassword, "application.yaml": `db:\n  password: ${M.payments}\n` },
    },
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "liqo-planted-extra", namespace: "liqo", uid: crypto.randomUUID() },
      data: { "settings.conf": `secret=${M.liqoCmSecret}\nmtu=1340\n` },
    },
    pod("payments", "payments-api-7d9f8c6b5-abcde"),
    pod("liqo", "liqo-planted-sidecar-5c8d7f6b4-xyz12"),
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "payments-api", namespace: "payments", uid: crypto.randomUUID() },
      spec: { replicas: 1, template: { spec: { containers: [container("app")] } } },
      status: { readyReplicas: 1 },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "liqo-planted-helper", namespace: TENANT, uid: crypto.randomUUID() },
      spec: { replicas: 1, template: { spec: { containers: [container("helper")] } } },
      status: { readyReplicas: 1 },
    },
    {
      apiVersion: "v1",
      kind: "Secret",
      type: "Opaque",
      metadata: {
        name: "planted-pem-under-publickey",
        namespace: TENANT,
        uid: crypto.randomUUID(),
        labels: { "liqo.io/remote-cluster-id": "milan-8d1f03" },
        annotations: { "example.com/description": `db password is ${M.annotation}` },
      },
      data: { publicKey: btoa(PEM_EC) },
    },
    {
      apiVersion: "v1",
      kind: "Event",
      type: "Warning",
      metadata: { name: "gw-milan-8d1f03.planted", namespace: TENANT, uid: crypto.randomUUID() },
      involvedObject: { kind: "Service", namespace: TENANT, name: "gw-milan-8d1f03" },
      reason: "PlantedFailure",
      message: `webhook call failed: Authorization: Bearer ${M.bearer} rejected; token=${M.argToken}`,
      count: 1,
      firstTimestamp: "2026-11-30T02:20:00Z",
      lastTimestamp: "2026-11-30T02:20:00Z",
    },
    {
      apiVersion: "v1",
      kind: "Event",
      type: "Warning",
      metadata: { name: "payments-api.planted", namespace: "payments", uid: crypto.randomUUID() },
      involvedObject: { kind: "Pod", namespace: "payments", name: "payments-api-7d9f8c6b5-abcde" },
      reason: "Planted",
      message: `connecting with ${M.payments}`,
      count: 1,
      lastTimestamp: "2026-11-30T02:20:00Z",
    },
  ];
}

/** The planted-secrets scenario plus {@link plantedObjects} and more credentials in the logs. */
async function plantedScenario(dir: string): Promise<Scenario> {
  const s: Scenario = structuredClone(await loadScenario("collect-planted-secrets"));
  const own = await Deno.readTextFile(new URL("rome.objects.yaml", s.dir));
  await Deno.writeTextFile(`${dir}/rome.objects.yaml`, own);
  // One JSON document per object (JSON is YAML: the scenario loader reads multi-document files).
  await Deno.writeTextFile(
    `${dir}/planted.objects.yaml`,
    plantedObjects().map((o) => JSON.stringify(o)).join("\n---\n"),
  );
  s.dir = new URL(`file://${dir}/`).href;
  const rome = s.clusters.rome;
  rome.objects = ["rome.objects.yaml", "planted.objects.yaml"];
  const cmLog = "liqo/liqo-controller-manager-6c8f7d9b5-hx2pq/controller-manager";
  rome.logs = {
    ...rome.logs,
    [cmLog]: (rome.logs?.[cmLog] ?? "") + [
      `I1130 02:06:34.000001       1 s3.go:10] aws_access_key_id=${M.aws} aws_secret_access_key=${M.awsSecret}`,
      `I1130 02:06:34.000002       1 git.go:20] cloning with ${M.github}`,
      `I1130 02:06:34.000003       1 db.go:30] dsn postgres://app:${M.dbPassword}@db.payments:5432/app`,
      `I1130 02:06:34.000004       1 key.go:40] loaded -----BEGIN OPENSSH PRIVATE KEY-----`,
      M.pemBody,
      `-----END OPENSSH PRIVATE KEY-----`,
      `I1130 02:06:34.000005       1 auth.go:50] id token ${JWT}`,
      "",
    ].join("\n"),
  };
  return s;
}

function assertClean(what: string, text: string): void {
  for (const [name, v] of Object.entries(M)) {
    assert.ok(!text.includes(v), `${what}: planted ${name} (${v.slice(0, 16)}…) found`);
  }
  assert.ok(!text.includes(btoa(PEM_EC)), `${what}: the PEM under publicKey found`);
}

Deno.test({
  name: "collect: credentials planted everywhere stay out of the bundle, every check output and the reports",
  ...opts,
  fn: () =>
    withTmp("ff-secrets-", async (dir) => {
      const s = await plantedScenario(dir);
      const served = await serveScenario(s, { tls: false, ...FAKE_CLOCK });
      const bundle = `${dir}/bundle.tar.gz`;
      let live;
      let collect;
      try {
        const kc = `${dir}/rome.kubeconfig`;
        await Deno.writeTextFile(kc, served.kubeconfigYaml("rome"));
        [live, collect] = await Promise.all([
          runCli(["check", "--kubeconfig", kc, "-o", "json", ...checkArgs(s)]),
          runCli([
            "collect",
            "--kubeconfig",
            kc,
            "--output-file",
            bundle,
            "--sample-interval",
            SAMPLE_INTERVAL,
          ], {
            permissions: [...CLI_PERMISSIONS, `--allow-write=${dir}`],
          }),
        ]);
      } finally {
        await served.close();
      }
      assert.equal(collect.code, 0, collect.stderr);

      // 1. The archive, raw and file by file.
      const gz = await Deno.readFile(bundle);
      assertClean("archive", dec.decode(await gunzip(gz)));
      const files = await unpackBundle(gz);
      for (const [path, data] of files) assertClean(path, dec.decode(data));

      // 2. Scope: nothing of the payments namespace; Liqo's own objects are there, redacted.
      const list = (k: string) => JSON.parse(dec.decode(files.get(layout.list("local", k))!));
      for (const k of ["pods", "configmaps", "deployments", "events"]) {
        const items = list(k).items as { metadata: { namespace?: string } }[];
        assert.ok(items.length > 0, k);
        assert.ok(!items.some((o) => o.metadata.namespace === "payments"), `${k} of payments collected`);
      }
      const ev = list("events").items.find((e: { metadata: { name: string } }) =>
        e.metadata.name === "gw-milan-8d1f03.planted"
      );
      assert.match(
        ev.message,
        /Bearer \(redacted\) rejected; token=\(redacted\)/,
        "the Event is kept, scrubbed",
      );
      const sidecar = list("pods").items.find((p: { metadata: { name: string } }) =>
        p.metadata.name.startsWith("liqo-planted-sidecar")
      );
      assert.ok(sidecar, "the pod in the Liqo namespace is kept");
      const c = sidecar.spec.containers[0];
      assert.deepEqual(c.args, [
        "--stripe-key=(redacted)",
        "--token=(redacted)",
        "--api-secret",
        "(redacted)",
        "--listen-port=8080",
        "--verbose",
      ]);
      assert.deepEqual(c.command, ["/app/server"]);
      assert.deepEqual(
        c.env.map((e: { name: string; value: string }) => `${e.name}=${e.value}`),
        ["DATABASE_URL=(redacted)", "API_KEY=(redacted)", "LOG_LEVEL=(redacted)", "PORT=8080"],
      );
      assert.equal(sidecar.metadata.annotations["example.com/notes"], "(redacted)");
      const extra = list("configmaps").items.find((x: { metadata: { name: string } }) =>
        x.metadata.name === "liqo-planted-extra"
      );
      assert.deepEqual(extra.data, { "settings.conf": "(redacted)" });
      const clusterId = list("configmaps").items.find((x: { metadata: { name: string } }) =>
        x.metadata.name === "liqo-clusterid-configmap"
      );
      assert.equal(
        clusterId?.data?.CLUSTER_ID,
        "rome-4b2a9e",
        "the cluster-ID ConfigMap the checks read is kept",
      );
      const pemSecret = list("secrets").items.find((x: { metadata: { name: string } }) =>
        x.metadata.name === "planted-pem-under-publickey"
      );
      assert.deepEqual(pemSecret.data ?? {}, {}, "a PEM block under publicKey is not a WireGuard key");
      const gwKeys = list("secrets").items.find((x: { metadata: { name: string } }) =>
        x.metadata.name === "planted-gateway-keys-milan-8d1f03"
      );
      assert.deepEqual(gwKeys.data, { publicKey: "yWekIEb7O8JoD5KvxJfEeICYekx+a6stG9+TRBHm0RI=" });
      const ns = list("namespaces").items.find((x: { metadata: { name: string } }) =>
        x.metadata.name === "payments"
      );
      assert.equal(ns.metadata.annotations["example.com/owner-notes"], "(redacted)");

      // 3. The manifest counts what was scrubbed and what the scope left out; collect printed it.
      const manifest = readManifest(files);
      assert.equal(manifest.formatVersion, 1);
      const scrubbed = manifest.scrubbed ?? {};
      for (
        const k of [
          "pem",
          "bearer",
          "jwt",
          "aws-access-key",
          "key-value",
          "url-credentials",
          "provider-key",
          "env",
          "args",
          "annotations",
          "configmap-keys",
          "secret-keys",
          "wg-private-key",
        ]
      ) {
        assert.ok((scrubbed[k] ?? 0) > 0, `manifest.scrubbed.${k}: ${JSON.stringify(scrubbed)}`);
      }
      assert.deepEqual(manifest.clusters[0].scrubbed, scrubbed);
      const scope = manifest.clusters[0].scope!;
      assert.ok(
        scope.namespaces.includes("liqo") && scope.namespaces.includes(TENANT),
        scope.namespaces.join(),
      );
      assert.ok(!scope.namespaces.includes("payments"));
      for (const k of ["pods", "configmaps", "deployments", "events"]) {
        assert.ok((scope.dropped[k] ?? 0) > 0, k);
      }
      assert.match(collect.stderr, /scrubbed: .*annotations \d+.*args \d+.*env \d+.*pem \d+/);

      // 4. Every offline output: the five check formats, the HTML and Markdown reports.
      const offline = ["--allow-read"];
      for (const fmt of ["text", "json", "yaml", "markdown", "junit"]) {
        const r = await runCli(["check", "--snapshot", bundle, "-o", fmt, "-v", ...checkArgs(s)], {
          permissions: fmt === "text" ? ["--allow-read", "--allow-env"] : offline,
        });
        assert.ok(r.code === 0 || r.code === 1 || r.code === 2, `${fmt}: exit ${r.code}: ${r.stderr}`);
        assertClean(`check -o ${fmt}`, r.stdout + r.stderr);
        if (fmt === "json") {
          assertSameDiagnosis("planted", JSON.parse(live.stdout), JSON.parse(r.stdout));
        }
      }
      for (const fmt of ["html", "markdown"]) {
        const out = `${dir}/report.${fmt === "html" ? "html" : "md"}`;
        const r = await runCli(
          ["report", "--snapshot", bundle, "-o", fmt, "--output-file", out, ...checkArgs(s)],
          {
            permissions: ["--allow-read", `--allow-write=${dir}`],
          },
        );
        assert.ok(r.code <= 2, `report ${fmt}: exit ${r.code}: ${r.stderr}`);
        assertClean(`report ${fmt}`, (await Deno.readTextFile(out)) + r.stdout + r.stderr);
      }
    }),
});
