/**
 * The credentials of a kubeconfig user without @kubernetes/client-node: exec credential plugins
 * (v1 and v1beta1, cache until expiry, installHint, provideClusterInfo, interactiveMode, failures),
 * OIDC id-tokens, the legacy cloud auth-providers, basic auth, client certificates, tokenFile
 * rotation, and the one resend after a 401 with a plugin's token.
 */
import assert from "node:assert/strict";
import { ToolError } from "../errors.ts";
import { createCredentialSource, jwtExpiry } from "./credentials.ts";
import { type Cluster, loadKubeConfig, type User } from "./kubeconfig.ts";
import { openKubeClient } from "./live/client.ts";

const CLUSTER: Cluster = { name: "k", server: "https://127.0.0.1:6443", skipTLSVerify: true };

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "ff-cred-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes an executable shell script. */
async function script(path: string, body: string): Promise<string> {
  await Deno.writeTextFile(path, `#!/bin/sh\n${body}\n`);
  await Deno.chmod(path, 0o755);
  return path;
}

/** A user whose exec plugin is `command` (v1 unless told). */
function execUser(command: string, extra: Partial<NonNullable<User["exec"]>> = {}): User {
  return {
    name: "u",
    exec: {
      command,
      args: [],
      env: [],
      apiVersion: "client.authentication.k8s.io/v1",
      provideClusterInfo: false,
      interactiveMode: "Never",
      ...extra,
    },
  };
}

function credential(apiVersion: string, status: Record<string, unknown>): string {
  return JSON.stringify({ apiVersion, kind: "ExecCredential", status });
}

async function rejectsWith(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e) => {
    assert.ok(e instanceof ToolError, String(e));
    assert.match(e.message, re);
    assert.equal(e.message.includes("\n"), false, e.message);
    return true;
  });
}

Deno.test("exec plugin: v1 and v1beta1 tokens, cached until expirationTimestamp, then run again", async () => {
  await withDir(async (dir) => {
    for (const apiVersion of ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"]) {
      const suffix = apiVersion.split("/")[1];
      const count = `${dir}/count-${suffix}`;
      const expires = new Date(Date.now() + 300).toISOString();
      const plugin = await script(
        `${dir}/plugin-${suffix}`,
        `echo x >> ${count}\nn=$(wc -l < ${count} | tr -d ' ')\n` +
          `printf '%s' '${
            credential(apiVersion, { token: "tok-NUM", expirationTimestamp: expires })
          }' | sed "s/NUM/$n/"`,
      );
      const src = createCredentialSource(execUser(plugin, { apiVersion }), {
        contextName: "c",
        cluster: CLUSTER,
        timeoutMs: 5_000,
      });
      const first = await Promise.all([src.get(), src.get(), src.get()]);
      for (const c of first) {
        assert.equal(c.headers.Authorization, "Bearer tok-1", "one run for parallel asks");
      }
      assert.equal((await src.get()).headers.Authorization, "Bearer tok-1", "cached");
      await new Promise((r) => setTimeout(r, 350));
      assert.equal((await src.get()).headers.Authorization, "Bearer tok-2", "expired: run again");
      assert.equal(src.plugin, plugin);
      await src.close();
    }
  });
});

Deno.test("exec plugin: env, args, KUBERNETES_EXEC_INFO with the cluster, client certificate data", async () => {
  await withDir(async (dir) => {
    const ca = btoa("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
    const plugin = await script(
      `${dir}/plugin`,
      `[ "$1" = "--flag" ] && [ "$FOO" = "bar" ] || { echo "bad args/env" >&2; exit 1; }\n` +
        `printf '%s' "$KUBERNETES_EXEC_INFO" > ${dir}/info.json\n` +
        `printf '%s' '${
          credential("client.authentication.k8s.io/v1", {
            clientCertificateData: "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n",
            clientKeyData: "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n",
          })
        }'`,
    );
    const src = createCredentialSource(
      execUser(plugin, { args: ["--flag"], env: [{ name: "FOO", value: "bar" }], provideClusterInfo: true }),
      {
        contextName: "c",
        cluster: { ...CLUSTER, caData: ca, tlsServerName: "api.example" },
        timeoutMs: 5_000,
      },
    );
    const c = await src.get();
    assert.equal(c.headers.Authorization, undefined);
    assert.match(c.cert ?? "", /^-----BEGIN CERTIFICATE-----\nC\n/);
    assert.match(c.key ?? "", /^-----BEGIN PRIVATE KEY-----\nK\n/);
    const info = JSON.parse(await Deno.readTextFile(`${dir}/info.json`));
    assert.deepEqual(info, {
      apiVersion: "client.authentication.k8s.io/v1",
      kind: "ExecCredential",
      spec: {
        interactive: false,
        cluster: {
          server: CLUSTER.server,
          "tls-server-name": "api.example",
          "insecure-skip-tls-verify": true,
          "certificate-authority-data": ca,
        },
      },
    });
    await src.close();
  });
});

Deno.test("exec plugin: not installed (installHint), failing, bad output, wrong apiVersion, interactive without a terminal", async () => {
  await withDir(async (dir) => {
    const opts = { contextName: "eks", cluster: CLUSTER, timeoutMs: 5_000, terminal: false };
    const get = (user: User) => {
      const src = createCredentialSource(user, opts);
      return src.get().finally(() => src.close());
    };
    await rejectsWith(
      get(
        execUser(`${dir}/aws-missing`, {
          installHint: "Install the AWS CLI:\n  https://aws.amazon.com/cli/",
        }),
      ),
      /^the exec credential plugin .*aws-missing of context eks is not installed \(not found\): Install the AWS CLI: https:\/\/aws\.amazon\.com\/cli\/$/,
    );
    const failing = await script(
      `${dir}/failing`,
      `echo "progress..." >&2\necho "token expired, run aws sso login" >&2\nexit 4`,
    );
    await rejectsWith(get(execUser(failing)), /failed \(exit code 4\): token expired, run aws sso login$/);
    const garbage = await script(`${dir}/garbage`, "echo not json");
    await rejectsWith(get(execUser(garbage)), /did not print an ExecCredential \(not JSON\)$/);
    const empty = await script(
      `${dir}/empty`,
      `printf '%s' '${credential("client.authentication.k8s.io/v1", {})}'`,
    );
    await rejectsWith(get(execUser(empty)), /neither a token nor a client certificate$/);
    const beta = await script(
      `${dir}/beta`,
      `printf '%s' '${credential("client.authentication.k8s.io/v1beta1", { token: "t" })}'`,
    );
    await rejectsWith(
      get(execUser(beta)),
      /answered with apiVersion client\.authentication\.k8s\.io\/v1beta1, not .*\/v1$/,
    );
    await rejectsWith(
      get(execUser(beta, { apiVersion: "client.authentication.k8s.io/v1alpha1" })),
      /uses apiVersion "client\.authentication\.k8s\.io\/v1alpha1", which is not supported/,
    );
    await rejectsWith(
      get(execUser(beta, { apiVersion: "client.authentication.k8s.io/v1beta1", interactiveMode: "Always" })),
      /needs an interactive terminal \(interactiveMode: Always\) but standard input is not a terminal$/,
    );
  });
});

Deno.test({
  name: "exec plugin: not allowed by --allow-run is one line naming the flag and a working command",
  permissions: { run: ["kubectl"], read: true, env: true, net: ["127.0.0.1"] },
  async fn() {
    const src = createCredentialSource(execUser("/opt/bin/aws"), {
      contextName: "eks",
      cluster: CLUSTER,
      timeoutMs: 1_000,
    });
    await rejectsWith(
      src.get(),
      /^missing Deno permission --allow-run=\/opt\/bin\/aws \(needed to run the exec credential plugin \/opt\/bin\/aws of context eks\); run: .* run .*--allow-net=127\.0\.0\.1 --allow-run=kubectl,\/opt\/bin\/aws /,
    );
    await src.close();
  },
});

function jwt(claims: Record<string, unknown>): string {
  const b64 = (o: unknown) =>
    btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${b64({ alg: "RS256" })}.${b64(claims)}.c2ln`;
}

Deno.test("auth-providers: OIDC id-token (expired: refresh with kubelogin), gcp and azure name their plugin", async () => {
  const opts = { contextName: "c", cluster: CLUSTER, timeoutMs: 1_000 };
  const oidc = (token: string | undefined): User => ({
    name: "dev",
    authProvider: { name: "oidc", config: token ? { "id-token": token, "refresh-token": "r" } : {} },
  });
  const valid = jwt({ exp: Math.floor(Date.now() / 1000) + 3600 });
  assert.equal(
    jwtExpiry(valid),
    JSON.parse(atob(valid.split(".")[1].replace(/-/g, "+").replace(/_/g, "/"))).exp * 1000,
  );
  const ok = await createCredentialSource(oidc(valid), opts).get();
  assert.equal(ok.headers.Authorization, `Bearer ${valid}`);
  await rejectsWith(
    createCredentialSource(oidc(jwt({ exp: 1_700_000_000 })), opts).get(),
    /^the OIDC id-token of user "dev" of context c expired at 2023-11-14T22:13:20\.000Z: log in again \(kubelogin/,
  );
  await rejectsWith(createCredentialSource(oidc(undefined), opts).get(), /has no id-token: .*kubelogin/);
  await rejectsWith(
    createCredentialSource({ name: "g", authProvider: { name: "gcp", config: {} } }, opts).get(),
    /removed "gcp" auth-provider: install gke-gcloud-auth-plugin/,
  );
  await rejectsWith(
    createCredentialSource({ name: "a", authProvider: { name: "azure", config: {} } }, opts).get(),
    /removed "azure" auth-provider: install kubelogin and run `kubelogin convert-kubeconfig -l azurecli`/,
  );
});

Deno.test("static credentials: basic auth, impersonation, client certificate data and files, tokenFile re-read", async () => {
  await withDir(async (dir) => {
    const opts = { contextName: "c", cluster: CLUSTER, timeoutMs: 1_000 };
    const basic = await createCredentialSource(
      {
        name: "b",
        username: "admin",
        password: "s3cret",
        impersonateUser: "jane",
        impersonateGroups: ["ops"],
      },
      opts,
    ).get();
    assert.equal(basic.headers.Authorization, `Basic ${btoa("admin:s3cret")}`);
    assert.equal(basic.headers["Impersonate-User"], "jane");
    assert.equal(basic.headers["Impersonate-Group"], "ops");

    const certPem = "-----BEGIN CERTIFICATE-----\nC\n-----END CERTIFICATE-----\n";
    const keyPem = "-----BEGIN PRIVATE KEY-----\nK\n-----END PRIVATE KEY-----\n";
    const data = await createCredentialSource(
      { name: "d", certData: btoa(certPem), keyData: btoa(keyPem) },
      opts,
    )
      .get();
    assert.equal(data.cert, certPem);
    assert.equal(data.key, keyPem);
    await Deno.writeTextFile(`${dir}/client.crt`, certPem);
    await Deno.writeTextFile(`${dir}/client.key`, keyPem);
    const files = await createCredentialSource(
      { name: "f", certFile: `${dir}/client.crt`, keyFile: `${dir}/client.key` },
      opts,
    ).get();
    assert.equal(files.cert, certPem);
    await rejectsWith(
      createCredentialSource({ name: "h", certData: btoa(certPem) }, opts).get(),
      /client certificate without its key/,
    );
    await rejectsWith(
      createCredentialSource({ name: "m", certFile: `${dir}/nope.crt`, keyFile: `${dir}/client.key` }, opts)
        .get(),
      /^cannot read client-certificate .*nope\.crt: no such file$/,
    );

    // tokenFile: read at load, read again once older than the TTL (a projected token rotates).
    await Deno.writeTextFile(`${dir}/token`, "one\n");
    await Deno.writeTextFile(
      `${dir}/config`,
      `current-context: c
clusters: [{name: k, cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {tokenFile: token}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
`,
    );
    const loaded = await loadKubeConfig({ kubeconfig: `${dir}/config` });
    const src = createCredentialSource(loaded.user, { ...opts, tokenFileTtlMs: 50 });
    assert.equal((await src.get()).headers.Authorization, "Bearer one");
    await Deno.writeTextFile(`${dir}/token`, "two\n");
    assert.equal((await src.get()).headers.Authorization, "Bearer one", "still fresh");
    await new Promise((r) => setTimeout(r, 60));
    assert.equal((await src.get()).headers.Authorization, "Bearer two", "re-read");
    await Deno.remove(`${dir}/token`);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(
      (await src.get()).headers.Authorization,
      "Bearer two",
      "a failed re-read keeps the last token",
    );
  });
});

Deno.test("exec plugin: a 401 runs the plugin again and resends once", async () => {
  await withDir(async (dir) => {
    const count = `${dir}/count`;
    const plugin = await script(
      `${dir}/plugin`,
      `echo x >> ${count}\nn=$(wc -l < ${count} | tr -d ' ')\n` +
        `printf '%s' '${
          credential("client.authentication.k8s.io/v1", { token: "tok-NUM" })
        }' | sed "s/NUM/$n/"`,
    );
    const seen: string[] = [];
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      const auth = req.headers.get("authorization") ?? "-";
      seen.push(auth);
      return auth === "Bearer tok-2"
        ? Response.json({ gitVersion: "v1.31.0" })
        : new Response(JSON.stringify({ kind: "Status", code: 401 }), { status: 401 });
    });
    try {
      const client = await openKubeClient({
        kubeconfigYaml: `current-context: c
clusters: [{name: k, cluster: {server: "http://127.0.0.1:${server.addr.port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ${plugin}, interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
`,
      });
      try {
        await client.probeReachable();
        assert.deepEqual(seen, ["Bearer tok-1", "Bearer tok-2"]);
      } finally {
        await client.close();
      }
    } finally {
      await server.shutdown();
    }
  });
});
