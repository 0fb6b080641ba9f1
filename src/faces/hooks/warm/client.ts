import fs from "node:fs";
import type { WarmReply, WarmRequest } from "./protocol.ts";

// The hook's side of the warm path: ask the store's server (warm/server.ts) and take its answer,
// or learn that the hook must run in-process (and whether to start a server after). Any failure
// (no socket, refused, closed early, a torn or unreadable line, no answer in time) is the
// in-process path: the server writes nothing (read-only), so the client's run is the only one.

/** The answer; or in-process, why, and whether to start a server after. */
export type Asked = { answer: string } | { start: boolean; why: string };

/** How long the hook waits for a server's answer before running in-process (env-settable). */
const DEFAULT_WAIT_MS = 1_500;

/** Send `req`, wait at most `waitMs` for the one-line reply. */
export async function askWarm(socket: string, req: WarmRequest, waitMs = DEFAULT_WAIT_MS): Promise<Asked> {
  let text = "";
  let settle!: (closed: boolean) => void;
  const ended = new Promise<boolean>((resolve) => (settle = resolve));
  let out: Uint8Array | null = new TextEncoder().encode(`${JSON.stringify(req)}\n`);
  const flush = (sock: import("bun").Socket) => {
    if (!out) return;
    const n = sock.write(out);
    out = n > 0 ? out.subarray(n) : out;
    if (out.length === 0) out = null;
  };
  let sock: import("bun").Socket;
  try {
    sock = await Bun.connect({
      unix: socket,
      socket: {
        open(s) {
          flush(s);
        },
        data(_s, chunk) {
          text += chunk.toString("utf8");
        },
        drain(s) {
          flush(s);
        },
        close() {
          settle(true);
        },
        end() {
          settle(true);
        },
        error() {
          settle(true);
        },
      },
    });
  } catch {
    // no server (no socket, or a killed one's name): start one after answering
    return { start: true, why: "no server" };
  }
  const timer = setTimeout(() => settle(false), waitMs);
  const closed = await ended;
  clearTimeout(timer);
  sock.terminate();
  if (!closed) {
    // a hung server: its name is removed, so it sees it is replaced (warm/server.ts) and the next hook starts another
    fs.rmSync(socket, { force: true });
    return { start: false, why: "no answer in time" };
  }
  const reply = parseReply(text);
  if (reply && "answer" in reply) return { answer: reply.answer };
  // in-process; a server that died (a torn reply) or left (another build) is started again
  return { start: !reply || reply.inProcess === "build" || reply.inProcess === "stopping", why: reply ? reply.inProcess : "a torn reply" };
}

/** The server's one line, whole, or null. */
function parseReply(text: string): WarmReply | null {
  if (!text.endsWith("\n")) return null;
  try {
    const v = JSON.parse(text) as WarmReply;
    if (v && typeof v === "object" && (typeof (v as { answer?: unknown }).answer === "string" || typeof (v as { inProcess?: unknown }).inProcess === "string")) return v;
  } catch {
    // torn
  }
  return null;
}

/** Whether a server answers on `socket` (connects at all). */
export async function answers(socket: string): Promise<boolean> {
  try {
    const sock = await Bun.connect({ unix: socket, socket: { data() {} } });
    sock.terminate();
    return true;
  } catch {
    return false;
  }
}
