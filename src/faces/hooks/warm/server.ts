import fs from "node:fs";
import process from "node:process";
import { env, usualJit, writeErr } from "../../../runtime/host.ts";
import { answers } from "./client.ts";
import { realStoreRoot, warmPlace } from "./place.ts";
import type { WarmReply, WarmRequest } from "./protocol.ts";
import { BUILD_ID } from "./build-id.ts";

// `memsync hook-server --store DIR` (hidden): one store's warm hook server, as git's fsmonitor
// daemon is one repository's. It keeps memsync's modules loaded and compiled and answers the
// UserPromptSubmit hook over a Unix socket (warm/place.ts), one request at a time, read-only
// (warm/answer.ts). A hook started with --warm asks it first and starts it when none answers.
//
// One server per store: it listens on a name of its own and links the store's socket name to
// it, which fails while another holds that name; a name nothing answers on (a killed server's) is
// replaced. A second server finding one that answers exits quietly (0). It exits when idle for
// MEMSYNC_HOOK_SERVER_IDLE_MS (default 30 minutes), when the store's folder goes, when its name
// is taken or removed, when a client of another build asks (an upgraded binary), and on SIGTERM.

const DEFAULT_IDLE_MS = 30 * 60 * 1000;
/** How long a stop waits for the requests already read. */
const STOP_WAIT_MS = 5_000;
/** A request running this long is stuck. */
const STUCK_MS = 60_000;
/** A request larger than this is not read (the client sends at most 1 MiB of input). */
const MAX_REQUEST = 2 * 1024 * 1024;

/**
 * Test faults (MEMSYNC_HOOK_SERVER_FAULT): die (SIGKILL) when a request has been read, when its
 * answer is made, or halfway through writing it; or never answer (hang).
 */
type Fault = "die-on-request" | "die-after-answer" | "die-mid-reply" | "hang" | undefined;

interface Conn {
  text: string;
  taken: boolean;
  /** Bytes still to write, and who waits for them. */
  out: Uint8Array | null;
  drained: (() => void) | null;
}

function idleMs(): number {
  const n = Number(env("MEMSYNC_HOOK_SERVER_IDLE_MS"));
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_IDLE_MS;
}

/** A request as the client sends it, or null. */
function readRequest(line: string): WarmRequest | null {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  const r = v as WarmRequest;
  const str = (x: unknown) => typeof x === "string";
  const ok =
    !!r && typeof r === "object" && str(r.build) && str(r.event) && str(r.stdin) && str(r.cwd) && str(r.home) && typeof r.memoryMd === "boolean" &&
    (r.store === undefined || str(r.store)) && Array.isArray(r.self) && r.self.every(str) &&
    !!r.vars && typeof r.vars === "object" && Object.values(r.vars).every(str);
  return ok ? r : null;
}

export async function hookServer(argv: readonly string[]): Promise<number> {
  const at = argv.indexOf("--store");
  const given = at >= 0 ? argv[at + 1] : undefined;
  if (!given) {
    writeErr("memsync: hook-server needs --store DIR\n");
    return 2;
  }
  if (BUILD_ID === null) return 0; // run from source: no build to match clients with
  const root = realStoreRoot(given);
  const place = root && fs.existsSync(`${root}/.meta.json`) ? warmPlace(root, { XDG_RUNTIME_DIR: env("XDG_RUNTIME_DIR"), TMPDIR: env("TMPDIR") }, true) : null;
  // no store, no safe folder, or a server already answering: nothing to do
  if (!root || !place || (await answers(place.socket))) return 0;
  usualJit();
  process.chdir("/");
  const fault = env("MEMSYNC_HOOK_SERVER_FAULT") as Fault;
  const idle = idleMs();
  const startedAt = Date.now();
  let lastActive = Date.now();
  let busy = 0;
  let queue: Promise<void> = Promise.resolve();
  let stopped = false;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));

  const send = (sock: import("bun").Socket<Conn>, text: string): Promise<void> => {
    const c = sock.data;
    c.out = new TextEncoder().encode(text);
    return new Promise<void>((resolve) => {
      c.drained = resolve;
      flush(sock);
    });
  };
  const flush = (sock: import("bun").Socket<Conn>) => {
    const c = sock.data;
    if (!c.out) return;
    const n = sock.write(c.out);
    // a client that gave up closed its end: nothing more to write (-1), and nobody waits for it
    c.out = n < 0 ? new Uint8Array(0) : n > 0 ? c.out.subarray(n) : c.out;
    if (c.out.length === 0) {
      c.out = null;
      const d = c.drained;
      c.drained = null;
      d?.();
    }
  };

  const handle = async (sock: import("bun").Socket<Conn>, line: string): Promise<void> => {
    busy++;
    lastActive = Date.now();
    try {
      const req = readRequest(line);
      if (fault === "die-on-request") process.kill(process.pid, "SIGKILL");
      if (fault === "hang") return await new Promise<void>(() => {});
      let reply: WarmReply;
      if (!req) reply = { inProcess: "request" };
      else if (req.build !== BUILD_ID) {
        // an upgraded binary asks: its own server takes over once this one is gone
        stop("a client of another build");
        reply = { inProcess: "build" };
      } else if (stopped || !fs.existsSync(`${root}/.meta.json`)) {
        stop("the store is gone");
        reply = { inProcess: "stopping" };
      } else reply = await (await import("./answer.ts")).answer(req, root);
      if (fault === "die-after-answer") process.kill(process.pid, "SIGKILL");
      const text = `${JSON.stringify(reply)}\n`;
      if (fault === "die-mid-reply") {
        sock.write(text.slice(0, text.length >> 1));
        process.kill(process.pid, "SIGKILL");
      }
      await send(sock, text);
      sock.end();
    } finally {
      busy--;
      lastActive = Date.now();
    }
  };

  const tmp = `${place.socket}.${process.pid}.tmp`;
  fs.rmSync(tmp, { force: true });
  const listener = Bun.listen<Conn>({
    unix: tmp,
    socket: {
      open(sock) {
        sock.data = { text: "", taken: false, out: null, drained: null };
      },
      data(sock, chunk) {
        const c = sock.data;
        if (c.taken) return;
        c.text += chunk.toString("utf8");
        if (c.text.length > MAX_REQUEST) {
          c.taken = true;
          sock.end();
          return;
        }
        const nl = c.text.indexOf("\n");
        if (nl < 0) return;
        c.taken = true;
        const line = c.text.slice(0, nl);
        c.text = "";
        queue = queue.then(() => handle(sock, line)).catch(() => {});
      },
      drain(sock) {
        flush(sock);
      },
      close(sock) {
        // a reply still being written has no reader any more: its request is done
        const c = sock.data;
        if (c?.drained) {
          c.out = null;
          const d = c.drained;
          c.drained = null;
          d();
        }
      },
      error() {},
    },
  });
  // the store's name, made to point at this server (once more over a dead server's name)
  let ino: number | null = null;
  for (let attempt = 0; attempt < 2 && ino === null; attempt++) {
    try {
      fs.linkSync(tmp, place.socket);
      ino = fs.lstatSync(place.socket).ino;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST" || (await answers(place.socket))) break;
      fs.rmSync(place.socket, { force: true });
    }
  }
  fs.rmSync(tmp, { force: true });
  if (ino === null) {
    listener.stop(true);
    return 0;
  }
  const ours = () => fs.lstatSync(place.socket, { throwIfNoEntry: false })?.ino === ino;

  function stop(why: string): void {
    if (stopped) return;
    stopped = true;
    if (env("MEMSYNC_HOOK_SERVER_TRACE") === "1") writeErr(`memsync hook-server: stopping (${why}; idle ${idle} ms, ${Date.now() - startedAt} ms after start)\n`);
    // the name first: a client from now on finds no server (and may start its own)
    if (ours()) fs.rmSync(place!.socket, { force: true });
    clearInterval(ticker);
    // requests already read are answered (a hung one not waited for long); then the listener closes
    void Promise.race([queue, Bun.sleep(STOP_WAIT_MS)]).then(() => {
      listener.stop(true);
      done();
    });
  }
  const ticker = setInterval(() => {
    const still = Date.now() - lastActive;
    // a request running past STUCK_MS is stuck (clients gave up on it long ago): idle all the same
    if (!ours()) stop("its name is gone or another server's");
    else if (!fs.existsSync(`${root}/.meta.json`)) stop("the store is gone");
    else if ((busy === 0 || still > STUCK_MS) && still > idle) stop("idle");
  }, Math.max(20, Math.min(1_000, idle / 4)));
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  await finished;
  // nothing of a stuck request's may keep the process
  process.exit(0);
}
