function chain(e: unknown): string { const out = []; let c: any = e; let i = 0; while (c && i++ < 6) { out.push(`${c?.constructor?.name}|${c?.name}|${c?.code}|${c?.message}`); c = c.cause; } return out.join("\n   <- "); }
let k8s: any;
try { k8s = await import("@kubernetes/client-node"); } catch (e) { console.log("IMPORT:", chain(e)); Deno.exit(0); }
import https from "node:https";
const kc = new k8s.KubeConfig();
try { kc.loadFromFile(Deno.args[0] ?? "/tmp/ffx/kc.yaml"); } catch (e) { console.log("LOAD:", chain(e)); }
try {
const opts: any = {};
await kc.applyToHTTPSOptions(opts);
const body = await new Promise((res, rej) => {
  const req = https.request((Deno.args[1] ?? "https://127.0.0.1:16443") + "/version", { method: "GET", agent: opts.agent, headers: opts.headers, timeout: 3000 }, (r) => {
    let s = ""; r.on("data", (c) => s += c); r.on("end", () => res([r.statusCode, s]));
  });
  req.on("error", rej); req.on("timeout", () => req.destroy(new Error("timeout"))); req.end();
});
console.log(body);
} catch (e) { console.log("REQ:", chain(e)); }
