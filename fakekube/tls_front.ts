/**
 * The fake server's TLS front: terminates HTTPS on 127.0.0.1 and pipes each connection to the plain
 * HTTP server behind it, counting connections and bytes sent.
 */

/** A running TLS front. */
export interface TlsFront {
  port: number;
  /** Connections accepted and bytes sent to clients so far. */
  readonly traffic: Traffic;
  stopAccepting(): void;
  close(): Promise<void>;
}

/** What the server's clients cost it: connections opened and bytes sent back. */
export interface Traffic {
  connections: number;
  bytesSent: number;
}

/**
 * Terminates TLS (HTTP/1.1 only via ALPN) on 127.0.0.1 and pipes each connection to the plain
 * HTTP server. Deno.serve would offer HTTP/2, and Deno's node:http2 client (used by undici inside
 * @kubernetes/client-node) can abort the whole process on the GOAWAY a closing in-process server
 * sends (nghttp2 assertion in find_stream_on_goaway_func).
 */
export function startTlsFront(backendPort: number, cert: string, key: string): TlsFront {
  const listener = Deno.listenTls({ hostname: "127.0.0.1", port: 0, cert, key, alpnProtocols: ["http/1.1"] });
  const conns = new Set<Deno.Conn>();
  const pipes = new Set<Promise<unknown>>();
  const traffic: Traffic = { connections: 0, bytesSent: 0 };
  const serveConn = async (conn: Deno.TlsConn): Promise<void> => {
    conns.add(conn);
    traffic.connections++;
    let backend: Deno.TcpConn | null = null;
    try {
      backend = await Deno.connect({ hostname: "127.0.0.1", port: backendPort });
      conns.add(backend);
      await Promise.allSettled([
        conn.readable.pipeTo(backend.writable),
        backend.readable.pipeThrough(
          new TransformStream<Uint8Array, Uint8Array>({
            transform(chunk, ctl) {
              traffic.bytesSent += chunk.byteLength;
              ctl.enqueue(chunk);
            },
          }),
        ).pipeTo(conn.writable),
      ]);
    } catch {
      // handshake failure or peer gone
    } finally {
      for (const c of [conn, backend]) {
        if (!c) continue;
        conns.delete(c);
        try {
          c.close();
        } catch {
          // already closed by the pipe
        }
      }
    }
  };
  const acceptLoop = (async () => {
    try {
      for await (const conn of listener) {
        const p = serveConn(conn);
        pipes.add(p);
        p.finally(() => pipes.delete(p));
      }
    } catch {
      // listener closed
    }
  })();
  let accepting = true;
  const stopAccepting = (): void => {
    if (!accepting) return;
    accepting = false;
    listener.close();
  };
  return {
    port: (listener.addr as Deno.NetAddr).port,
    traffic,
    stopAccepting,
    close: async () => {
      stopAccepting();
      await acceptLoop;
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      await Promise.allSettled([...pipes]);
    },
  };
}
