import assert from "node:assert/strict";
import { describeNetworkError, PermissionError, permissionFlag, ToolError, toToolError } from "./errors.ts";
import { formatToolError } from "./cli/errors.ts";

Deno.test("ToolError and PermissionError exit with 3", () => {
  assert.equal(new ToolError("x").exitCode, 3);
  const p = new PermissionError("--allow-net", "reach the API server 127.0.0.1:6443");
  assert.equal(p.exitCode, 3);
  assert.ok(p instanceof ToolError);
  assert.equal(p.flag, "--allow-net");
});

Deno.test("formatToolError: permission line names the flag, purpose and the task", () => {
  const p = new PermissionError("--allow-net", "reach the API server 127.0.0.1:6443");
  assert.equal(
    formatToolError(p),
    "flyingfish: missing Deno permission --allow-net (needed to reach the API server 127.0.0.1:6443). " +
      "Run with --allow-net or use the `deno task flyingfish` task.",
  );
  assert.equal(formatToolError(new ToolError("bad\n  thing")), "flyingfish: bad thing");
});

Deno.test({
  name: "toToolError: a real NotCapable read error maps to --allow-read",
  permissions: { read: false },
  fn() {
    let caught: unknown;
    try {
      Deno.readTextFileSync("/etc/hostname-flyingfish-test");
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Deno.errors.NotCapable);
    const t = toToolError(new Error("loading failed", { cause: caught }), "read the kubeconfig");
    assert.ok(t instanceof PermissionError);
    assert.equal(t.flag, "--allow-read");
    assert.equal(t.purpose, "read the kubeconfig");
  },
});

Deno.test({
  name: "toToolError: a real NotCapable env error maps to --allow-env",
  permissions: { env: false },
  fn() {
    let caught: unknown;
    try {
      Deno.env.get("KUBECONFIG");
    } catch (e) {
      caught = e;
    }
    const t = toToolError(caught);
    assert.ok(t instanceof PermissionError);
    assert.equal(t.flag, "--allow-env");
    assert.match(t.purpose, /KUBECONFIG/);
  },
});

Deno.test("toToolError: permission messages deep in the cause chain map to exact flags", () => {
  const wrap = (msg: string): Error =>
    new Error("outer", { cause: new Error("middle", { cause: new Deno.errors.NotCapable(msg) }) });
  const cases: [string, string, RegExp][] = [
    [
      'Requires net access to "1.2.3.4:443", run again with the --allow-net flag',
      "--allow-net",
      /1\.2\.3\.4:443/,
    ],
    ['Requires env access to "KUBECONFIG", run again with the --allow-env flag', "--allow-env", /KUBECONFIG/],
    ['Requires read access to "/x", run again with the --allow-read flag', "--allow-read", /\/x/],
    [
      'Requires run access to "/usr/bin/kubectl", run again with the --allow-run flag',
      "--allow-run=/usr/bin/kubectl",
      /kubectl/,
    ],
    ['Requires sys access to "uid", run again with the --allow-sys flag', "--allow-sys=uid", /uid/],
    ["Requires ffi access, run again with the --allow-ffi flag", "--allow-ffi", /native/],
  ];
  for (const [msg, flag, purpose] of cases) {
    const t = toToolError(wrap(msg));
    assert.ok(t instanceof PermissionError, msg);
    assert.equal(t.flag, flag);
    assert.match(t.purpose, purpose);
  }
  // A plain message (no NotCapable class) is recognised too, and an explicit purpose wins.
  const t = toToolError(
    new Error('Requires net access to "127.0.0.1:6443"'),
    "reach the API server 127.0.0.1:6443",
  );
  assert.ok(t instanceof PermissionError);
  assert.equal(
    formatToolError(t),
    "flyingfish: missing Deno permission --allow-net (needed to reach the API server 127.0.0.1:6443). " +
      "Run with --allow-net or use the `deno task flyingfish` task.",
  );
});

Deno.test("permissionFlag", () => {
  assert.equal(permissionFlag("run", "kubectl"), "--allow-run=kubectl");
  assert.equal(permissionFlag("run", "/usr/local/bin/aws"), "--allow-run=/usr/local/bin/aws");
  assert.equal(permissionFlag("run"), "--allow-run");
  assert.equal(permissionFlag("sys", "hostname"), "--allow-sys=hostname");
  assert.equal(permissionFlag("sys", "ca"), "--allow-sys");
  assert.equal(permissionFlag("net", "1.2.3.4:443"), "--allow-net");
});

Deno.test("toToolError: OS permission denial is a ToolError but not a Deno permission", () => {
  const t = toToolError(
    new Deno.errors.PermissionDenied("Permission denied (os error 13)"),
    "read the kubeconfig",
  );
  assert.ok(t instanceof ToolError);
  assert.ok(!(t instanceof PermissionError));
  assert.match(t.message, /cannot read the kubeconfig: Permission denied/);
});

Deno.test("toToolError: network failures become 'cannot reach the API server'", () => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
  const t = toToolError(new Error("request failed", { cause: refused }), undefined, {
    server: "https://127.0.0.1:1",
  });
  assert.ok(t instanceof ToolError);
  assert.equal(
    t.message,
    "cannot reach the API server at https://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1",
  );

  const tls = Object.assign(new Error("unable to verify the first certificate"), {
    code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  });
  assert.match(
    toToolError(tls, undefined, { server: "https://127.0.0.1:6443" })!.message,
    /^cannot reach the API server at https:\/\/127\.0\.0\.1:6443: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)$/,
  );
  const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND api.example"), { code: "ENOTFOUND" });
  assert.match(toToolError(notFound)!.message, /cannot reach the API server: getaddrinfo ENOTFOUND/);
  const timeout = new Error("request timed out after 100 ms");
  timeout.name = "TimeoutError";
  assert.match(describeNetworkError(timeout)!, /timed out/);
});

Deno.test("toToolError: 401/403 on the first request names the context", () => {
  const e = Object.assign(new Error("Unauthorized"), { status: 401 });
  const t = toToolError(e, undefined, {
    server: "https://127.0.0.1:6443",
    context: "rome",
    firstRequest: true,
  });
  assert.equal(
    t?.message,
    "the API server at https://127.0.0.1:6443 rejected the credentials of context rome (401)",
  );
  // Later 403s are per-kind RBAC facts, not tool errors.
  assert.equal(toToolError(Object.assign(new Error("forbidden"), { status: 403 }), undefined, {}), null);
});

Deno.test("toToolError: unrelated errors and existing ToolErrors", () => {
  assert.equal(toToolError(new Error("something else")), null);
  assert.equal(toToolError("a string"), null);
  const te = new ToolError("already");
  assert.equal(toToolError(new Error("wrapped", { cause: te })), te);
});

Deno.test("permissionFlag: the --allow-run value it names for a plugin given by path is one Deno accepts", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A plugin outside PATH, as kubeconfigs name them (e.g. /usr/local/bin/aws, ~/bin/kubelogin).
    const plugin = `${dir}/cred-plugin`;
    await Deno.writeTextFile(plugin, "#!/bin/sh\necho ok\n");
    await Deno.chmod(plugin, 0o755);
    const script = `${dir}/spawn.ts`;
    await Deno.writeTextFile(
      script,
      `try { await new Deno.Command(${JSON.stringify(plugin)}).output(); console.log("ran"); } ` +
        `catch (e) { console.log(String(e)); }`,
    );
    const run = async (flag: string): Promise<string> => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-lock", "--no-config", flag, script],
        env: { PATH: "/usr/bin:/bin", NO_COLOR: "1" },
      }).output();
      return new TextDecoder().decode(out.stdout).trim();
    };
    const denied = await run("--allow-read");
    assert.match(denied, /Requires run access to/);
    const denial = toToolError(new Error(denied));
    assert.ok(denial instanceof PermissionError);
    assert.equal(denial.flag, `--allow-run=${plugin}`);
    assert.equal(await run(denial.flag), "ran");
    // The bare name is not enough when the plugin is not on PATH.
    assert.match(await run("--allow-run=cred-plugin"), /Requires run access/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
