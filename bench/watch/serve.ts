/**
 * The fake API server of the watch benchmark, in a process of its own (so the benchmark's RSS is the
 * watcher's alone): serves a scenario, writes its kubeconfig to the path given, and answers each
 * line on stdin with the request log counted by kind since the last line, as one JSON line.
 *
 *   deno run --allow-env --allow-read --allow-write --allow-net=127.0.0.1 bench/watch/serve.ts <scenario> <kubeconfig-out>
 */
import { loadScenario, type RequestLogEntry, serveScenario } from "../../fakekube/mod.ts";

/** What one request was: a list, a watch, an exec, /version, or discovery. */
export function requestKind(r: RequestLogEntry): string {
  if (r.upgrade) return "exec";
  if (/(^|&)watch=(1|true)/.test(r.query)) return "watch";
  if (r.path === "/version") return "version";
  if (
    r.path === "/api" || r.path === "/apis" || /^\/apis\/[^/]+(\/[^/]+)?$/.test(r.path) ||
    r.path === "/api/v1"
  ) {
    return "discovery";
  }
  return r.path.includes("/log") ? "log" : "list";
}

if (import.meta.main) {
  const [name, out] = Deno.args;
  const s = await loadScenario(name);
  const served = await serveScenario(s, { execClockStepSeconds: 1 });
  const cluster = served.clusters[s.run.local]!;
  await Deno.writeTextFile(out, served.kubeconfigYaml(s.run.local));
  console.log(JSON.stringify({ ready: true, cluster: s.run.local }));
  let mark = 0;
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  let buf = "";
  for await (const chunk of lines) {
    buf += chunk;
    while (buf.includes("\n")) {
      buf = buf.slice(buf.indexOf("\n") + 1);
      const counts: Record<string, number> = {};
      for (const r of cluster.requests.slice(mark)) {
        counts[requestKind(r)] = (counts[requestKind(r)] ?? 0) + 1;
      }
      mark = cluster.requests.length;
      console.log(JSON.stringify(counts));
    }
  }
  await served.close();
}
