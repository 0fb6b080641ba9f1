import net from "node:net";

// HTTP/1.1 over a plain socket, for tests that must know exactly which connection a request went
// on (a kept-alive one or a fresh one) and when its bytes were handed to the kernel: fetch pools
// and retries connections out of sight.

export interface RawConnection {
  socket: net.Socket;
  /** Send a request; resolves once its bytes are written to the socket. */
  send(method: string, path: string, body?: unknown): Promise<void>;
  /** The next complete answer on this connection, or why none came (ECONNRESET, "closed"). */
  answer(): Promise<RawAnswer>;
  close(): void;
}

export type RawAnswer = { status: number; headers: Record<string, string>; body: string } | { error: string };

/** A connection to host:port, resolved once it is established (the server's kernel accepted it). */
export function connect(port: number, host = "127.0.0.1"): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    let buf: Buffer = Buffer.alloc(0);
    let ended: string | null = null;
    const waiters = new Set<() => void>();
    const wake = () => {
      for (const w of [...waiters]) w();
    };
    socket.on("data", (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      wake();
    });
    socket.on("error", (e: NodeJS.ErrnoException) => {
      ended ??= e.code ?? e.message;
      wake();
    });
    socket.on("close", () => {
      ended ??= "closed";
      wake();
    });
    socket.once("error", reject);
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve({
        socket,
        send: (method, path, body) => {
          const b = body === undefined ? "" : JSON.stringify(body);
          const head = `${method} ${path} HTTP/1.1\r\nhost: ${host}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(b)}\r\n\r\n`;
          return new Promise<void>((ok, fail) => socket.write(head + b, (e) => (e ? fail(e) : ok())));
        },
        answer: () =>
          new Promise<RawAnswer>((done) => {
            const check = () => {
              const end = buf.indexOf("\r\n\r\n");
              if (end >= 0) {
                const lines = buf.subarray(0, end).toString("latin1").split("\r\n");
                const headers: Record<string, string> = {};
                for (const l of lines.slice(1)) {
                  const i = l.indexOf(":");
                  headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
                }
                const length = Number(headers["content-length"] ?? 0);
                if (buf.length >= end + 4 + length) {
                  const body = buf.subarray(end + 4, end + 4 + length).toString("utf8");
                  buf = buf.subarray(end + 4 + length);
                  waiters.delete(check);
                  return done({ status: Number(lines[0]!.split(" ")[1]), headers, body });
                }
              }
              if (ended !== null) {
                waiters.delete(check);
                done({ error: ended });
              }
            };
            waiters.add(check);
            check();
          }),
        close: () => socket.destroy(),
      });
    });
  });
}
