#!/usr/bin/env -S deno run --v8-flags=--max-semi-space-size=2,--expose-gc --allow-env --allow-read --allow-write --allow-net --allow-sys --allow-run=kubectl
/**
 * The FlyingFish command line: `deno run … cli/main.ts <command>` (or `jsr:@flyingfish/cli/cli`).
 *
 * The entry imports nothing up front. `flyingfish version` answers from a module that needs no CLI
 * framework, so it starts in the time Deno itself takes; every other command loads the command tree
 * (cli/program.ts, which loads each command's own modules when it runs).
 */

/** Runs the CLI with the given arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  if (args.length === 1 && args[0] === "version") {
    try {
      const { printVersion } = await import("./version_cmd.ts");
      await printVersion({});
      return 0;
    } catch {
      // The command tree reports the failure the usual way (one line, exit 3).
    }
  }
  // Before the command tree: its modules build the schemas (see zod_config.ts).
  await import("./zod_config.ts");
  const program = await import("./program.ts");
  return await program.main(args);
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
