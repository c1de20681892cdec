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
