const k8s = await import("@kubernetes/client-node");
import https from "node:https";
import { Writable } from "node:stream";
const kc = new k8s.KubeConfig();
kc.loadFromFile("/tmp/ffx/kc.yaml");
const opts: any = {};
await kc.applyToHTTPSOptions(opts);
console.log(Object.keys(opts), opts.headers);
const body = await new Promise((res, rej) => {
  const req = https.request("https://127.0.0.1:16443/api/v1/pods?limit=2", { method: "GET", agent: opts.agent, headers: opts.headers, timeout: 3000 }, (r) => {
    let s = ""; r.on("data", (c) => s += c); r.on("end", () => res([r.statusCode, s]));
  });
  req.on("error", rej); req.end();
});
console.log(body);
const ex = new k8s.Exec(kc);
let out = "", err = "";
const so = new Writable({ write(c, _e, cb) { out += c; cb(); } });
const se = new Writable({ write(c, _e, cb) { err += c; cb(); } });
const st = await new Promise((res, rej) => {
  ex.exec("ns", "p", "c", ["wg", "show"], so, se, null, false, (s) => res(s)).then((ws) => { ws.on?.("close", () => res("closed")); }, rej);
});
console.log({ out, err, st });
