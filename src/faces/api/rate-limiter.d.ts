// The memory limiter's own file (token-guesses.ts) has the package's types, which name only the index.
declare module "rate-limiter-flexible/lib/RateLimiterMemory.js" {
  import { RateLimiterMemory } from "rate-limiter-flexible";
  export default RateLimiterMemory;
}
