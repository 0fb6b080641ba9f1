// How much shorter gists make memories, per level, on three corpora: the benchmark's generated
// memories (scripts/bench-lib/corpus.ts), a prose corpus of agent memories and a set of terse
// notes (tests/fixtures/prose-memories.ts). A memory without a gist counts as 0% saved, as it
// does in recall, which then shows the content.
//
//   bun scripts/bench-lib/gist-savings.ts [--json]

import { GIST_LEVELS, type GistLevel, makeGist, reduceText, wordCount } from "../../src/core/gist.ts";
import { PROSE_MEMORIES, TERSE_MEMORIES } from "../../tests/fixtures/prose-memories.ts";
import { Corpus } from "./corpus.ts";

/**
 * An estimate of model tokens: common words are one token, long words and digit runs a few,
 * each punctuation mark one. No tokenizer package is installed; the estimate is only used to
 * compare a text with its gist.
 */
export function approxTokens(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/\p{L}+|\p{N}+|[^\s\p{L}\p{N}]/gu)) {
    const s = m[0];
    if (/^\p{L}/u.test(s)) n += s.length <= 7 ? 1 : Math.ceil(s.length / 5);
    else if (/^\p{N}/u.test(s)) n += Math.ceil(s.length / 3);
    else n += 1;
  }
  return n;
}

export interface LevelSavings {
  level: GistLevel;
  /** Mean share of characters saved per memory (0 for a memory given no gist). */
  chars: number;
  /** Mean share of estimated tokens saved per memory. */
  tokens: number;
  /** Mean share of characters the reducer removes before makeGist's rules (30 words, 85%). */
  rawChars: number;
  /** Memories that got a gist. */
  gisted: number;
  /** Mean time to make one gist, in ms. */
  msPerMemory: number;
}

export interface CorpusSavings {
  corpus: string;
  memories: number;
  meanWords: number;
  levels: LevelSavings[];
}

export function measureSavings(corpus: string, texts: readonly string[], entitiesOf: (i: number) => readonly string[] = () => []): CorpusSavings {
  const levels = GIST_LEVELS.map((level): LevelSavings => {
    let chars = 0;
    let tokens = 0;
    let gisted = 0;
    let raw = 0;
    texts.forEach((text, i) => {
      raw += 1 - (reduceText(text, level, entitiesOf(i)) ?? text).length / text.length;
    });
    const t0 = performance.now();
    texts.forEach((text, i) => {
      const g = makeGist(text, level, entitiesOf(i));
      if (g === null) return;
      gisted++;
      chars += 1 - g.length / text.length;
      tokens += 1 - approxTokens(g) / approxTokens(text);
    });
    const ms = (performance.now() - t0) / texts.length;
    return { level, chars: chars / texts.length, tokens: tokens / texts.length, rawChars: raw / texts.length, gisted, msPerMemory: ms };
  });
  return { corpus, memories: texts.length, meanWords: texts.reduce((a, t) => a + wordCount(t), 0) / texts.length, levels };
}

/** The benchmark corpus's memories (1,000 of them, the seed scripts/bench uses). */
export function benchTexts(size = 1000, seed = 20261121): { texts: string[]; entities: string[][] } {
  const corpus = new Corpus(size, seed);
  const texts: string[] = [];
  const entities: string[][] = [];
  while (!corpus.done) {
    const { memory } = corpus.next();
    texts.push(String(memory.fields.content));
    entities.push((memory.fields.entities as string[]) ?? []);
  }
  return { texts, entities };
}

export function measureAll(): CorpusSavings[] {
  const bench = benchTexts();
  return [
    measureSavings("prose (tests/fixtures)", PROSE_MEMORIES),
    measureSavings("terse notes (tests/fixtures)", TERSE_MEMORIES),
    measureSavings("bench corpus (1,000)", bench.texts, (i) => bench.entities[i]!),
  ];
}

if (import.meta.main) {
  const results = measureAll();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
    console.log("corpus                          n   words  level        chars  ~tokens  gisted   raw chars  ms/memory");
    for (const c of results) {
      for (const l of c.levels) {
        console.log(
          `${c.corpus.padEnd(30)} ${String(c.memories).padStart(5)} ${c.meanWords.toFixed(0).padStart(6)}  ${l.level.padEnd(11)} ${pct(l.chars)}  ${pct(l.tokens)}  ${String(l.gisted).padStart(6)}   ${pct(l.rawChars).padStart(9)}  ${l.msPerMemory.toFixed(3)}`,
        );
      }
    }
  }
}
