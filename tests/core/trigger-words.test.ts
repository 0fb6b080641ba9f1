import { DECISION_TRIGGERS, mayMatch, PREFERENCE_TRIGGERS, PROBLEM_TRIGGERS, SOLUTION_TRIGGERS, type Trigger } from "../../src/core/capture/signals.ts";
import { testHints } from "../helpers/pattern-hints.ts";

// extract.ts searches a trigger phrase only in a sentence holding one of its words (see pattern-hints.ts).
// ONLY: for a hint the capture corpus holds in no matched sentence alone, a sentence that does.
const ONLY: Record<string, [string, string][]> = {
  "DECISION_TRIGGERS[1]": [["selected", "we selected redis"]],
  "DECISION_TRIGGERS[3]": [["gonna", "we're gonna adopt redis"]], // "shall" holds "ll"
  "DECISION_TRIGGERS[5]": [["migrating", "migrating to redis"], ["porting", "porting to rust"]],
  "DECISION_TRIGGERS[7]": [["agreed", "agreed on redis"], ["standardi", "standardized on redis"]],
  "DECISION_TRIGGERS[9]": [["remain", "we remain on redis"]],
  "DECISION_TRIGGERS[12]": [["migrat", "we migrated to redis"]],
  "DECISION_TRIGGERS[15]": [["port", "the jobs are porting over to rust"]],
  "DECISION_TRIGGERS[16]": [["introducing", "we are introducing redis"], ["rolling", "we are rolling out redis"]],
  "DECISION_TRIGGERS[17]": [["pin", "we pinned redis to 7"], ["mov", "we moved redis to 7"]],
  "DECISION_TRIGGERS[18]": [["mov", "we moved to redis 7"]],
  "DECISION_TRIGGERS[21]": [
    ["kept", "the keys are kept in vault"],
    ["hosted", "the site is hosted on netlify"],
    ["deployed", "the app is deployed on fly"],
    ["implemented", "the parser is implemented in rust"],
    ["run", "the jobs are run on k8s"],
  ],
  "DECISION_TRIGGERS[22]": [
    ["kept", "the files are kept every week"],
    ["retained", "the files are retained every week"],
    ["deleted", "the files are deleted every week"],
    ["purged", "the files are purged every week"],
    ["rotated", "the files are rotated every week"],
    ["rebuilt", "the files are rebuilt every week"],
    ["refreshed", "the files are refreshed every week"],
    ["backed up", "the files are backed up every week"],
    ["reviewed", "the files are reviewed every week"],
    ["bumped", "the files are bumped every week"],
    ["archived", "the files are archived every week"],
    ["renewed", "the files are renewed every week"],
    ["indexed", "the files are reindexed every week"],
    ["synced", "the files are synced every week"],
    ["scanned", "the files are scanned every week"],
    ["audited", "the files are audited every week"],
    ["patched", "the files are patched every week"],
    ["snapshotted", "the files are snapshotted every week"],
    ["exported", "the files are exported every week"],
  ],
  "DECISION_TRIGGERS[23]": [["run", "it will run on k8s."], ["sit", "the tools sit behind a vpn."], ["live", "it will live in s3."]],
  "DECISION_TRIGGERS[24]": [
    ["using", "the api is using redis"],
    ["hosted", "the api is hosted on fly"],
    ["deployed", "the api is deployed on fly"],
    ["backed", "the api is backed by redis"],
    ["data", "the api stores its data in redis"],
    ["talk", "the api talks to redis"],
  ],
  "DECISION_TRIGGERS[25]": [["our", "redis is our cache"], ["team", "redis is the team's cache"]],
  "DECISION_TRIGGERS[27]": [
    ["policy", "our policy is squash merges"],
    ["standard", "our standard is squash merges"],
    ["guideline", "our guideline is squash merges"],
    ["default", "our default is squash merges"],
  ],
  "DECISION_TRIGGERS[29]": [["chose", "the team chose: redis"], ["picked", "the team picked: redis"]],
  "DECISION_TRIGGERS[39]": [["switch", "let's switch the cache to redis"], ["migrat", "let's migrate the cache to redis"], ["move", "we'll move the cache to redis"], ["port", "let's port the parser to rust"]],
  "DECISION_TRIGGERS[40]": [["ended", "we ended up using redis"]],
  "PREFERENCE_TRIGGERS[3]": [["consistently", "consistently use redis"]],
  "PREFERENCE_TRIGGERS[4]": [["not", "you should not use redis"], ["dont", "dont use redis"]],
  "PREFERENCE_TRIGGERS[5]": [["want", "we never want to use redis"]],
  "PREFERENCE_TRIGGERS[8]": [
    ["longer", "we no longer use redis"],
    ["away", "we moved away from redis"],
    ["ditched", "we ditched redis"],
    ["removing", "we're removing redis"],
    ["phasing", "we're phasing out redis"],
    ["sunsetting", "we're sunsetting redis"],
    ["retiring", "we're retiring redis"],
  ],
  "PREFERENCE_TRIGGERS[12]": [["thumb", "my rule of thumb is to use redis"]],
  "PROBLEM_TRIGGERS[0]": [
    ["issue", "the issue is that redis is slow"],
    ["problem", "the problem is that redis is slow"],
    ["bug", "the bug is that redis is slow"],
    ["blocker", "the blocker is redis"],
    ["bottleneck", "the bottleneck is redis"],
    ["cause", "the cause is redis"],
    ["challenge", "the challenge is redis"],
  ],
  "PROBLEM_TRIGGERS[2]": [["block", "we are blocked by infra"]],
  "PROBLEM_TRIGGERS[3]": [
    ["more", "the build takes more than 20 minutes"],
    ["above", "the build is above 20 minutes"],
    ["nearly", "the build takes nearly 20 minutes"],
    ["almost", "the build takes almost 20 minutes"],
  ],
  "PROBLEM_TRIGGERS[5]": [
    ["keep", "the pods keep flaking"],
    ["kept", "the pods kept flaking"],
    ["throttled", "the api is being throttled"],
    ["evicted", "the pods got evicted"],
    ["work", "the login doesn't work"],
    ["start", "the server won't start"],
    ["compile", "the app won't compile"],
    ["connect", "the app can't connect"],
    ["unstable", "the api is unstable"],
    ["unreliable", "the api is unreliable"],
    ["caus", "the deploy caused outages"],
  ],
  "PROBLEM_TRIGGERS[6]": [["respond", "the api responds with a 500"], ["threw", "the api threw an error"], ["give", "the api gives an error"], ["gave", "the api gave an error"]],
  "PROBLEM_TRIGGERS[7]": [["timeout", "we hit a timeout"], ["crash", "we hit a crash"], ["panic", "we hit a panic"], ["segfault", "we hit a segfault"]],
  "PROBLEM_TRIGGERS[8]": [["exceeds", "the batch exceeds its window"], ["overruns", "the batch overruns its window"], ["overshoots", "the batch overshoots its budget"]],
  "PROBLEM_TRIGGERS[9]": [
    ["compromised", "so any compromised job can push"],
    ["malicious", "so a malicious job can push"],
    ["rogue", "so a rogue job can push"],
    ["stolen", "so a stolen key can push"],
    ["leaked", "so a leaked key can push"],
    ["attacker", "so an attacker can push"],
  ],
  "SOLUTION_TRIGGERS[0]": [["solved", "we solved it by caching"], ["around", "we worked around it by caching"], ["addressed", "we addressed it by caching"]],
  "SOLUTION_TRIGGERS[1]": [
    ["solution", "the solution is to cache"],
    ["workaround", "the workaround is to cache"],
    ["answer", "the answer is to cache"],
    ["trick", "the trick is to cache"],
    ["cure", "the cure is to cache"],
  ],
  "SOLUTION_TRIGGERS[2]": [["fix", "to fix it, cache"]],
  "SOLUTION_TRIGGERS[3]": [[":", "fix: cache the result"]],
  "SOLUTION_TRIGGERS[4]": [["took", "caching the index took it down to 200ms"], ["reduced", "caching the index reduced it to 200ms"]],
};

const GROUPS: [string, Trigger[]][] = [
  ["DECISION_TRIGGERS", DECISION_TRIGGERS],
  ["PREFERENCE_TRIGGERS", PREFERENCE_TRIGGERS],
  ["PROBLEM_TRIGGERS", PROBLEM_TRIGGERS],
  ["SOLUTION_TRIGGERS", SOLUTION_TRIGGERS],
];

for (const [group, triggers] of GROUPS) {
  triggers.forEach((t, i) => {
    const name = `${group}[${i}]`;
    if (t.words === undefined) throw new Error(`${name} has no words`);
    testHints({ name, re: t.re, hints: t.words, mayHold: (s) => mayMatch(t, s.toLowerCase()), none: "add a unit test for the login page redirect", corpusMatches: 0, only: ONLY[name] ?? [] });
  });
}
