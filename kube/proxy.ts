/**
 * A cluster's `proxy-url`: connections to the API server go through an HTTP(S) proxy (CONNECT
 * tunnel) or a SOCKS5 proxy, then TLS to the API server inside the tunnel. Plugged into the
 * keep-alive agent as its `createConnection`, so kept-alive connections are tunnels too.
 */
import type { Socket } from "node:net";
import type { AgentOptions } from "node:https";

/** Node's `Agent#createConnection` in its callback form. */
export type CreateConnection = (
  options: {
    host?: string | null;
    hostname?: string | null;
    port?: number | string | null;
    servername?: string;
  },
  callback: (err: Error | null, socket?: Socket) => void,
) => undefined;

/** Opens a CONNECT tunnel through an HTTP(S) proxy. */
async function httpTunnel(proxy: URL, host: string, port: number): Promise<Socket> {
  const net = await import("node:net");
  const tls = await import("node:tls");
  const proxyPort = Number(proxy.port) || (proxy.protocol === "https:" ? 443 : 80);
  const sock: Socket = proxy.protocol === "https:"
    ? tls.connect({ host: proxy.hostname, port: proxyPort, servername: proxy.hostname })
    : net.connect({ host: proxy.hostname, port: proxyPort });
  const auth = proxy.username
    ? `Proxy-Authorization: Basic ${
      btoa(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`)
    }\r\n`
    : "";
  const target = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  return await new Promise<Socket>((resolve, reject) => {
    let buf = "";
    const fail = (err: Error): void => {
      sock.destroy();
      reject(err);
    };
    sock.once("error", fail);
    sock.once(proxy.protocol === "https:" ? "secureConnect" : "connect", () => {
      sock.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`);
    });
    const onData = (chunk: Uint8Array | string): void => {
      buf += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > 16_384) fail(new Error(`proxy ${proxy.host}: answer to CONNECT too long`));
        return;
      }
      sock.off("data", onData);
      sock.off("error", fail);
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(buf)?.[1] ?? 0);
      if (status !== 200) {
        fail(new Error(`proxy ${proxy.host} refused CONNECT ${target} (HTTP ${status || "?"})`));
        return;
      }
      resolve(sock);
    };
    sock.on("data", onData);
  });
}

/** Reads exactly `n` bytes from a socket in paused-free mode. */
function readBytes(sock: Socket, n: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    let got = new Uint8Array(0);
    const onData = (chunk: Uint8Array): void => {
      const all = new Uint8Array(got.length + chunk.length);
      all.set(got);
      all.set(chunk, got.length);
      got = all;
      if (got.length >= n) {
        sock.off("data", onData);
        sock.off("error", reject);
        if (got.length > n) sock.unshift(got.subarray(n));
        resolve(got.subarray(0, n));
      }
    };
    sock.on("data", onData);
    sock.once("error", reject);
  });
}

/** Opens a connection through a SOCKS5 proxy (no auth, or user/password). */
async function socksTunnel(proxy: URL, host: string, port: number): Promise<Socket> {
  const net = await import("node:net");
  const sock = net.connect({ host: proxy.hostname, port: Number(proxy.port) || 1080 });
  await new Promise<void>((resolve, reject) => {
    sock.once("connect", () => resolve());
    sock.once("error", reject);
  });
  const fail = (msg: string): never => {
    sock.destroy();
    throw new Error(`socks proxy ${proxy.host}: ${msg}`);
  };
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  sock.write(new Uint8Array(user ? [5, 2, 0, 2] : [5, 1, 0]));
  const [ver, method] = await readBytes(sock, 2);
  if (ver !== 5) fail("not a SOCKS5 proxy");
  if (method === 2) {
    const u = new TextEncoder().encode(user);
    const p = new TextEncoder().encode(pass);
    sock.write(new Uint8Array([1, u.length, ...u, p.length, ...p]));
    const [, ok] = await readBytes(sock, 2);
    if (ok !== 0) fail("user/password rejected");
  } else if (method !== 0) fail("no acceptable authentication method");
  const name = new TextEncoder().encode(host);
  sock.write(new Uint8Array([5, 1, 0, 3, name.length, ...name, port >> 8, port & 0xff]));
  const head = await readBytes(sock, 4);
  if (head[1] !== 0) fail(`CONNECT ${host}:${port} failed (code ${head[1]})`);
  const rest = head[3] === 1 ? 4 + 2 : head[3] === 4 ? 16 + 2 : (await readBytes(sock, 1))[0] + 2;
  await readBytes(sock, rest);
  return sock;
}

/**
 * The `createConnection` of an agent that reaches the API server through `proxyUrl`; `tls` (null
 * for a plain-HTTP server) is applied inside the tunnel.
 */
export function proxyConnection(proxyUrl: string, tls: AgentOptions | null): CreateConnection {
  const proxy = new URL(proxyUrl);
  const socks = proxy.protocol.startsWith("socks");
  return (options, callback) => {
    const host = String(options.hostname ?? options.host ?? "localhost");
    const port = Number(options.port) || (tls ? 443 : 80);
    (socks ? socksTunnel(proxy, host, port) : httpTunnel(proxy, host, port)).then(async (sock) => {
      if (!tls) return callback(null, sock);
      const tlsMod = await import("node:tls");
      const servername = tls.servername ?? (/^[\d.]+$|:/.test(host) ? undefined : host);
      callback(null, tlsMod.connect({ ...tls, socket: sock, servername } as never));
    }, (err: Error) => callback(err));
    return undefined;
  };
}
