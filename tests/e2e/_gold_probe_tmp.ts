import { runScenarioCommand } from "./scenario_cli.ts";
const [name, ...args] = Deno.args;
const r = await runScenarioCommand(name, "check", { args });
console.log(r.stdout);
console.error(r.code, r.stderr);
