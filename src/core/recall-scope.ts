import { LOCAL_PROJECT_PREFIX } from "./project-id.ts";
import { everyday } from "./recall-gate.ts";
import type { Fit, RecallTerms } from "./recall-rank.ts";

// Recall's scope, pure: what the project a prompt is asked in means for its words and for
// the memories of other projects (branch recall26).

/**
 * The words of a project's name as a prompt writes it: its repository's name, the last part of
 * its id ("github.com/acme/ledgerly": "ledgerly"; "local:my-app": "my", "app").
 */
export function projectNameWords(project: string): string[] {
  const id = project.startsWith(LOCAL_PROJECT_PREFIX) ? project.slice(LOCAL_PROJECT_PREFIX.length) : project;
  const name = id.split("/").filter(Boolean).at(-1) ?? "";
  return name.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * The query's terms as a prompt inside `project` reads them: the project's name is no strong word.
 * Its memories name it everywhere ("Ledgerly stores invoices..."), so inside it the name tells
 * none of them apart, and with it one chance word carried the relevance floor's two ("what colors
 * should the ledgerly landing page use" got the checkout page's problem). It still counts as a
 * weak word in ranking. A name word the vocabulary knows (a concept of the query: "redis" in
 * redis-tools) stays strong: a product's name says what the prompt is about, and not every memory
 * of a project named after one is about that product.
 */
export function withinProject(terms: RecallTerms, project: string | null | undefined): RecallTerms {
  if (!project) return terms;
  // (a developer thesaurus link names no product: core/dev-thesaurus.ts)
  const known = new Set(terms.concepts.flatMap((c) => (c.linkOnly ? [] : c.from)));
  const name = new Set(projectNameWords(project).filter((w) => !known.has(w)));
  if (!terms.strong.some((w) => name.has(w))) return terms;
  return { ...terms, strong: terms.strong.filter((w) => !name.has(w)) };
}

/**
 * The project a prompt asked outside any repository names, of `projects`: its name's words in a
 * row in the prompt ("how is search done in acme-web"), the longest such name when several are
 * (acme-web over web); none when two names of one length are, or the one named is a single
 * word everyday English says ("harbor", "web": a prompt may say it about anything). Such a
 * prompt is asked of that project as if inside it (ops/recall.ts): its memories seldom repeat
 * the name, which kept as words they must hold left them under the floor (branch projects26).
 */
export function namedProject(query: string, projects: readonly string[]): string | null {
  const said = query.normalize("NFKC").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  let best: string | null = null;
  let bestWords = 0;
  let tie = false;
  for (const p of projects) {
    const name = projectNameWords(p);
    if (name.length === 0 || name.length < bestWords || !inARow(said, name)) continue;
    if (name.length === 1 && (name[0]!.length < 3 || everyday(name[0]!))) continue;
    tie = name.length === bestWords;
    best = p;
    bestWords = name.length;
  }
  return tie ? null : best;
}

/** Whether `run` occurs in `words` as consecutive words. */
function inARow(words: readonly string[], run: readonly string[]): boolean {
  for (let i = 0; i + run.length <= words.length; i++) if (run.every((w, j) => words[i + j] === w)) return true;
  return false;
}

/**
 * Of a prompt asked outside any repository, another project's memory must hold at least this share
 * of the strong words, and two of them: such a prompt is not about that project unless it says
 * most of what the memory says ("which database do we use for orders?" and the orders decision;
 * not another project's memory that shares only "database"). Judged on the audit's prompts
 * (tests/hooks/recall-audit26.test.ts), not on the corpus (it has no projects).
 */
export const SHARE_ELSEWHERE = 2 / 3;

/**
 * Whether a memory of `memoryProject` may be shown for a prompt asked outside any repository: a
 * memory of no project (the user's own) always; one of a project the prompt names, by the usual
 * floor; any other only when it passes the floor holding most of the prompt's strong words.
 */
export function shownOutside(terms: RecallTerms, memoryProject: string | null, fit: Fit): boolean {
  if (memoryProject === null) return true;
  const name = projectNameWords(memoryProject);
  if (name.length > 0 && name.every((w) => terms.words.includes(w))) return true;
  const held = new Set(fit.strongFound.map((w) => meaningOf(terms, w))).size;
  return fit.passes && held >= 2 && held >= SHARE_ELSEWHERE * new Set(terms.strong.map((w) => meaningOf(terms, w))).size;
}

/**
 * What a strong word says, for counting how much of the prompt a memory holds: the words of one
 * concept say one thing ("stripe connect": Stripe), else the word itself. Counted as two, a memory
 * naming only Stripe held two of "explain how stripe connect payouts work"'s three strong words.
 */
function meaningOf(terms: RecallTerms, word: string): string {
  // a thesaurus phrase ("analytics database") is a link, not one thing its words name together
  const concept = terms.concepts.find((c) => !c.linkOnly && c.from.length > 1 && c.from.includes(word));
  return concept ? `concept:${concept.label}` : word;
}
