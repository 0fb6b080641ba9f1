import type { RateLimiterMemory as Limiter, RateLimiterRes } from "rate-limiter-flexible";
// the memory limiter's own file: the package's index requires every store it supports (Redis,
// Mongo, SQL...), which the binary would then carry
import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory.js";

// Wrong tokens, counted per client: a server off loopback must not let anyone try tokens without
// end. Each wrong token (a bearer token to the API, or the page's sign-in form) counts against the
// client's address; past GUESSES in WINDOW_S the address is refused for BLOCK_S (429 with
// Retry-After), even with the right token, so a guess made while blocked tells nothing. A right
// token clears the address's count. Behind a reverse proxy every client shares the proxy's
// address: the limit is then one for all of them (the owner's own sign-in included).

/** Wrong tokens one address may send in WINDOW_S before it is refused. */
export const GUESSES = 10;
export const WINDOW_S = 15 * 60;
export const BLOCK_S = 15 * 60;

/** An address as the limit counts it: an IPv6 address by its /64 (one host holds the whole /64). */
export function clientKey(address: string | undefined): string {
  if (!address) return "unknown";
  const a = address.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  if (!a.includes(":")) return a;
  // expand "::" to get the first four groups
  const [head = "", tail = ""] = a.split("::");
  const h = head ? head.split(":") : [];
  const t = a.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = a.includes("::") ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t] : h;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

export class TokenGuesses {
  private readonly limiter: Limiter;

  constructor(guesses = GUESSES, windowS = WINDOW_S, blockS = BLOCK_S) {
    this.limiter = new RateLimiterMemory({ points: guesses, duration: windowS, blockDuration: blockS });
  }

  /** A right token from this client: seconds it must still wait (blocked), else 0 and its count starts again. */
  async right(client: string): Promise<number> {
    const r = await this.limiter.get(client);
    if (!r) return 0;
    if (r.consumedPoints > this.limiter.points) return Math.max(1, Math.ceil(r.msBeforeNext / 1000));
    await this.limiter.delete(client);
    return 0;
  }

  /** A wrong token from this client: seconds it must now wait (0: it may try again). */
  async wrong(client: string): Promise<number> {
    try {
      await this.limiter.consume(client);
      return 0;
    } catch (e) {
      const r = e as RateLimiterRes;
      return Math.max(1, Math.ceil(r.msBeforeNext / 1000));
    }
  }

}
