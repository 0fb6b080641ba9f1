import { LOCAL_PROJECT_PREFIX } from "./project-id.ts";
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
 * weak word in ranking; a concept named only by it is dropped.
 */
export function withinProject(terms: RecallTerms, project: string | null | undefined): RecallTerms {
  if (!project) return terms;
  const name = new Set(projectNameWords(project));
  if (!terms.strong.some((w) => name.has(w))) return terms;
  return {
    ...terms,
    strong: terms.strong.filter((w) => !name.has(w)),
    concepts: terms.concepts.filter((c) => c.from.some((w) => !name.has(w))),
  };
}

/**
 * Of a prompt asked outside any repository, another project's memory must hold every strong word
 * but one in this many: such a prompt is not about that project unless it says what the memory
 * says. Judged on the audit's prompts (tests/hooks/recall-audit26.test.ts), not on the corpus
 * (it has no projects).
 */
export const MISSING_ELSEWHERE_PER = 4;

/**
 * Whether a memory of `memoryProject` may be shown for a prompt asked outside any repository: a
 * memory of no project (the user's own) always; one of a project the prompt names, by the usual
 * floor; any other only when it passes the floor and holds (nearly) every strong word of the prompt.
 */
export function shownOutside(terms: RecallTerms, memoryProject: string | null, fit: Fit): boolean {
  if (memoryProject === null) return true;
  const name = projectNameWords(memoryProject);
  if (name.length > 0 && name.every((w) => terms.words.includes(w))) return true;
  const missing = terms.strong.length - fit.strongFound.length;
  return fit.passes && missing <= Math.floor(terms.strong.length / MISSING_ELSEWHERE_PER);
}
