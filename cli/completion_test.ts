import assert from "node:assert/strict";
import { buildProgram } from "./program.ts";
import { completionScript } from "./completion.ts";
import { ToolError } from "../errors.ts";

const VALUES = {
  explain: ["GW-01", "GW-02", "TUN-02", "PROBE-MATRIX", "PROBE-MTU"],
  demo: ["dual-healthy", "gw-lb-pending"],
  probe: ["matrix", "udp", "mtu", "service", "trace", "all"],
};

/** What the generated bash function offers for the words typed so far (the last one being completed). */
async function bashComplete(words: string[]): Promise<string[]> {
  const script = completionScript(buildProgram(), "bash", VALUES);
  const file = await Deno.makeTempFile({ suffix: ".bash" });
  try {
    await Deno.writeTextFile(file, script);
    const quoted = words.map((w) => `'${w}'`).join(" ");
    const probe = `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${
      words.length - 1
    }; _flyingfish; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = await new Deno.Command("bash", {
      args: ["--norc", "-c", probe],
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean);
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("completion bash: commands, flags, choices and argument values, from the commander program", async () => {
  assert.deepEqual(await bashComplete(["flyingfish", "ch"]), ["check", "checks"]);
  assert.deepEqual(await bashComplete(["flyingfish", "check", "--remote-k"]), ["--remote-kubeconfig"]);
  assert.deepEqual(await bashComplete(["flyingfish", "check", "-o", "j"]), ["json", "junit"]);
  assert.deepEqual(await bashComplete(["flyingfish", "report", "-o", ""]), ["html", "markdown"]);
  assert.deepEqual(await bashComplete(["flyingfish", "explain", "GW"]), ["GW-01", "GW-02"]);
  assert.deepEqual(await bashComplete(["flyingfish", "demo", "dual"]), ["dual-healthy"]);
  assert.deepEqual(await bashComplete(["flyingfish", "completion", ""]), ["bash", "zsh", "fish"]);
  assert.deepEqual(await bashComplete(["flyingfish", "explain", "PROBE-M"]), ["PROBE-MATRIX", "PROBE-MTU"]);
  assert.deepEqual(await bashComplete(["flyingfish", "probe", "m"]), ["matrix", "mtu"]);
  assert.deepEqual(await bashComplete(["flyingfish", "probe", "--mo"]), ["--mode"]);
  assert.deepEqual(await bashComplete(["flyingfish", "check", "--act"]), ["--active"]);
  // hidden flags (kept for compatibility) are not offered
  const collect = await bashComplete(["flyingfish", "collect", "--"]);
  assert.ok(collect.includes("--output-file") && !collect.includes("--output"), collect.join(" "));
});

Deno.test("completion zsh and fish: every visible command and long flag is in the script", () => {
  const program = buildProgram();
  for (const shell of ["zsh", "fish"]) {
    const script = completionScript(program, shell, VALUES);
    for (const cmd of program.commands) {
      assert.ok(script.includes(cmd.name()), `${shell}: no command ${cmd.name()}`);
      for (const o of cmd.options.filter((o) => !o.hidden && o.long)) {
        const flags = shell === "fish" ? [`-l ${o.long!.slice(2)} `] : [`'${o.long}[`, `,${o.long}}`];
        assert.ok(flags.some((f) => script.includes(f)), `${shell}: no ${o.long} for ${cmd.name()}`);
      }
    }
    assert.ok(script.includes("TUN-02") && script.includes("gw-lb-pending"), `${shell}: argument values`);
  }
  assert.match(completionScript(program, "zsh", VALUES), /^#compdef flyingfish\n/);
  assert.match(
    completionScript(program, "zsh", VALUES),
    /'\(-o --output\)'\{-o,--output\}'\[output format\]:output:\(text json yaml markdown junit\)'/,
  );
  assert.throws(() => completionScript(program, "tcsh"), ToolError);
});

const LIST_VALUES = {
  ...VALUES,
  "@ids": ["GW-01", "GW-02", "TUN-02", "TUN-03", "PROBE-MTU"],
  "@layers": ["gateway", "tunnel", "probe"],
};

/** Like {@link bashComplete}, with the ID and layer lists and a fake `kubectl` on PATH that logs its argv. */
async function bashCompleteWithKubectl(words: string[]): Promise<{ reply: string[]; kubectl: string[] }> {
  const dir = await Deno.makeTempDir();
  try {
    const script = completionScript(buildProgram(), "bash", LIST_VALUES);
    await Deno.writeTextFile(`${dir}/c.bash`, script);
    await Deno.writeTextFile(
      `${dir}/kubectl`,
      `#!/bin/sh\necho "$*" >> '${dir}/argv'\ncase "$*" in\n  *get-contexts*) echo ctx-a; echo ctx-b ;;\n  *foreignclusters*) printf 'milan-8d1f03 paris-5c3e71' ;;\nesac\n`,
    );
    await Deno.chmod(`${dir}/kubectl`, 0o755);
    const quoted = words.map((w) => `'${w}'`).join(" ");
    const probe = `source '${dir}/c.bash'; COMP_WORDS=(${quoted}); COMP_CWORD=${
      words.length - 1
    }; _flyingfish; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const out = await new Deno.Command("bash", {
      args: ["--norc", "-c", probe],
      env: { PATH: `${dir}:${Deno.env.get("PATH")}` },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const argv = await Deno.readTextFile(`${dir}/argv`).catch(() => "");
    return {
      reply: new TextDecoder().decode(out.stdout).split("\n").filter(Boolean),
      kubectl: argv.split("\n").filter(Boolean),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("completion bash: --only/--skip offer IDs (any case typed) and layers, after a comma too; never files", async () => {
  assert.deepEqual((await bashCompleteWithKubectl(["flyingfish", "check", "--only", "tun-0"])).reply, [
    "TUN-02",
    "TUN-03",
  ]);
  assert.deepEqual((await bashCompleteWithKubectl(["flyingfish", "check", "--skip", "TUN-02,g"])).reply, [
    "TUN-02,GW-01",
    "TUN-02,GW-02",
    "TUN-02,gateway",
  ]);
  assert.deepEqual((await bashCompleteWithKubectl(["flyingfish", "check", "--only", "tunn"])).reply, [
    "tunnel",
  ]);
  // Nothing matches: no file names either.
  assert.deepEqual((await bashCompleteWithKubectl(["flyingfish", "check", "--only", "deno"])).reply, []);
  assert.deepEqual((await bashCompleteWithKubectl(["flyingfish", "explain", "gw-0"])).reply, [
    "GW-01",
    "GW-02",
  ]);
});

Deno.test("completion bash: --context and --peer ask kubectl with the --kubeconfig (and context) on the line", async () => {
  const ctx = await bashCompleteWithKubectl([
    "flyingfish",
    "check",
    "--kubeconfig",
    "rome.yaml",
    "--context",
    "",
  ]);
  assert.deepEqual(ctx.reply, ["ctx-a", "ctx-b"]);
  assert.deepEqual(ctx.kubectl, ["--kubeconfig rome.yaml config get-contexts -o name"]);
  const remote = await bashCompleteWithKubectl([
    "flyingfish",
    "check",
    "--kubeconfig=rome.yaml",
    "--remote-kubeconfig=milan.yaml",
    "--remote-context",
    "",
  ]);
  assert.deepEqual(remote.kubectl, ["--kubeconfig milan.yaml config get-contexts -o name"]);
  const peer = await bashCompleteWithKubectl([
    "flyingfish",
    "check",
    "--kubeconfig",
    "rome.yaml",
    "--context",
    "rome",
    "--peer",
    "milan-8d1f03,",
  ]);
  assert.deepEqual(peer.reply, ["milan-8d1f03,milan-8d1f03", "milan-8d1f03,paris-5c3e71"]);
  assert.deepEqual(peer.kubectl, [
    "--kubeconfig rome.yaml --context rome get foreignclusters.core.liqo.io -o jsonpath={.items[*].metadata.name}",
  ]);
  const none = await bashCompleteWithKubectl(["flyingfish", "watch", "--peer", "zz"]);
  assert.deepEqual(none.reply, [], "no file names for --peer");
});
