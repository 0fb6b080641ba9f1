import { InMemoryServerEventBus, type McpServer } from "@modelcontextprotocol/server";
import { watchStore } from "./store-watch.ts";

// Resource subscriptions: a client subscribed to a resource of the store (the memory profile's
// memory://knowledge-graph) is sent notifications/resources/updated when the store changes, by
// any writer (store-watch.ts). Over stdio both generations: the 2025 handshake's
// resources/subscribe (answered here; a notification only for what was subscribed), and the
// 2026-07-28 subscriptions/listen (served by the SDK's stdio entry, which routes each
// notification onto the listens that asked for its URI). Over HTTP only the 2026-07-28 listen
// stream (an SSE answer that stays open): the 2025 stateless mode has no session to send to.

/** stdio: offer subscriptions on these URIs of one server instance, serving a connection of this era. */
export function offerSubscriptions(server: McpServer, era: "legacy" | "modern", storeRoot: () => string, uris: readonly string[]): void {
  const low = server.server;
  low.registerCapabilities({ resources: { subscribe: true } });
  // a 2025 connection is sent what it subscribed to; on a 2026-07-28 one the SDK's entry routes
  // each notification onto the listens that asked for its URI (and drops it otherwise)
  const subscribed = new Set<string>();
  let stop: (() => void) | undefined;
  const watch = () => {
    stop ??= watchStore(storeRoot(), () => {
      for (const uri of uris) if (era === "modern" || subscribed.has(uri)) low.sendResourceUpdated({ uri }).catch(() => {});
    });
  };
  // a 2025 connection polls from its first subscription; a 2026-07-28 one may listen at any time
  if (era === "modern") watch();
  else {
    low.setRequestHandler("resources/subscribe", async (req) => {
      if (uris.includes(req.params.uri)) subscribed.add(req.params.uri);
      watch();
      return {};
    });
    low.setRequestHandler("resources/unsubscribe", async (req) => {
      subscribed.delete(req.params.uri);
      return {};
    });
  }
  const closed = low.onclose;
  low.onclose = () => {
    stop?.();
    closed?.();
  };
}

/**
 * HTTP: a bus for the handler's subscriptions/listen streams, watching the store while one is
 * open. The watch starts when a stream subscribes (before its acknowledgement reaches the client),
 * so a write made right after the client's listen returns is seen; a poll for listeners would
 * start it up to one interval late, and a quick write would be taken as the starting state.
 */
export function listenBus(storeRoot: () => string, uris: readonly string[]): InMemoryServerEventBus {
  return new WatchedBus((bus) => watchStore(storeRoot(), () => uris.forEach((uri) => bus.publish({ kind: "resource_updated", uri }))));
}

class WatchedBus extends InMemoryServerEventBus {
  private stop: (() => void) | undefined;

  constructor(private readonly start: (bus: WatchedBus) => () => void) {
    super();
  }

  override subscribe(listener: Parameters<InMemoryServerEventBus["subscribe"]>[0]): () => void {
    const off = super.subscribe(listener);
    this.stop ??= this.start(this);
    return () => {
      off();
      if (this.listenerCount === 0 && this.stop) {
        this.stop();
        this.stop = undefined;
      }
    };
  }
}
