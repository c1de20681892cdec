/**
 * The floor of the scale benchmark: a bare client that replays, all at once, every GET the CLI sent
 * (same paths and queries, continuation pages included as logged) over HTTPS with one node:https
 * keep-alive agent, and exits. run.ts times this process from spawn to exit (start-up included) and
 * adds the sampling interval and two exec round trips: what the same answers cost with no ordering,
 * no parsing and no checks.
 *
 * Usage: deno run --allow-read --allow-net=127.0.0.1 bench/scale/floor.ts <plan.json>
 * where plan.json is {@link FloorPlan}. Prints {@link FloorResult} as JSON on stdout.
 */
import https from "node:https";

/** What to replay. */
export interface FloorPlan {
  /** https://127.0.0.1:<port> */
  url: string;
  /** CA certificate (PEM) of the server. */
  caPem: string;
  /** Bearer token. */
  token: string;
  /** Path + "?" + query of each GET, in the CLI's order. */
  requests: string[];
}

/** What the replay saw. */
export interface FloorResult {
  requests: number;
  /** Responses with a status other than 2xx (the CLI may have asked for things that are absent). */
  non2xx: number;
  /** Response bytes (bodies). */
  bytes: number;
  /** From the first request sent to the last response read, in ms. */
  ms: number;
}

function get(
  agent: https.Agent,
  base: URL,
  token: string,
  ca: string,
  path: string,
): Promise<[number, number]> {
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: base.hostname,
      port: base.port,
      path,
      method: "GET",
      agent,
      ca,
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    }, (res) => {
      let n = 0;
      res.on("data", (c: Uint8Array) => n += c.byteLength);
      res.on("end", () => resolve([res.statusCode ?? 0, n]));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

if (import.meta.main) {
  const plan: FloorPlan = JSON.parse(await Deno.readTextFile(Deno.args[0]));
  const agent = new https.Agent({ keepAlive: true });
  const base = new URL(plan.url);
  const t0 = performance.now();
  const answers = await Promise.all(plan.requests.map((p) => get(agent, base, plan.token, plan.caPem, p)));
  const ms = performance.now() - t0;
  agent.destroy();
  const result: FloorResult = {
    requests: answers.length,
    non2xx: answers.filter(([s]) => s < 200 || s > 299).length,
    bytes: answers.reduce((a, [, n]) => a + n, 0),
    ms: Math.round(ms),
  };
  console.log(JSON.stringify(result));
}
