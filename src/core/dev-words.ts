// Words of developer talk, shared by capture (is a sentence about software?) and recall (may one
// shared word carry a match?). General nouns of the trade, not product names (those are the
// vocabulary's, core/capture/vocabulary.ts).

/**
 * Words of developer talk: a sentence holding one is about software. General nouns of the trade
 * (not names: those are the vocabulary's), so a preference or rule without a product name still
 * counts ("small functions with descriptive names") and small talk does not ("I hate Mondays").
 */
export const DEV_WORDS: ReadonlySet<string> = new Set(
  (
    "constant constants literal literals code codebase function functions method methods class classes module modules component components hook hooks file files folder folders " +
    "directory test tests testing spec specs fixture fixtures mock mocks build builds deploy deploys deployment release releases branch branches " +
    "commit commits merge merges rebase pr prs review reviews reviewer diff diffs patch repo repos repository monorepo package packages dependency " +
    "dependencies library libraries framework version versions api apis endpoint endpoints route routes request requests response responses " +
    "query queries database db schema schemas table tables index indexes migration migrations column columns row rows cache caching queue queues " +
    "job jobs worker workers cron service services server servers client clients container containers image images pod pods cluster node nodes " +
    "config configuration env environment environments variable variables secret secrets token tokens key keys log logs logging metric metrics " +
    "trace traces alert alerts error errors exception exceptions bug bugs crash timeout timeouts latency memory cpu disk network proxy gateway " +
    "type types interface interfaces variable name names naming comment comments docstring docstrings docs documentation readme changelog " +
    "lint linter linting format formatter formatting indentation tabs spaces style styles css html json yaml toml sql script scripts shell " +
    "terminal command commands cli flag flags option options argument arguments parameter parameters return returns async await promise promises " +
    "callback callbacks loop loops recursion refactor refactoring abstraction pattern patterns architecture design layer layers dto model models " +
    "view views controller controllers handler handlers middleware plugin plugins extension extensions editor ide answer answers explanation " +
    "explanations snippet snippets example examples output input stack backend frontend ui ux css mobile web app apps browser page pages " +
    "screen screens form forms button buttons auth login session sessions password passwords permission permissions role roles user users " +
    "tenant tenants ci pipeline pipelines staging production prod dev local localhost port ports url urls domain domains dns certificate " +
    "ssl tls http https websocket websockets event events message messages payload payloads webhook webhooks upload uploads download storage " +
    "bucket buckets backup backups replica replicas shard shards transaction transactions lock locks thread threads process processes " +
    "push pull main master trunk tag tags clause clauses guard guards path paths happy exports import imports default defaults " +
    "const let var null undefined boolean string strings integer array arrays object objects map maps set sets dictionary " +
    "statement statements expression expressions operator operators syntax compile compiler runtime debug debugger breakpoint " +
    "refactors readable readability maintainable dry kiss solid tdd bdd pairing vim emacs vscode git github gitlab ssh " +
    "dashboard dashboards notification notifications admin console"
  ).split(" "),
);

/** Whether a sentence is about software: a word of developer talk in it. */
export function devTalk(s: string): boolean {
  for (const w of s.toLowerCase().match(/[a-z]+/g) ?? []) if (DEV_WORDS.has(w)) return true;
  return false;
}
