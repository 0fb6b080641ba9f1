import { type Features, featuresOf, Vocabulary } from "./features.ts";
import { hashString, setName } from "./hash.ts";
import { candidatePairs, DEFAULT_LSH, type LshParams } from "./lsh.ts";
import { similarity, similarityAtLeast } from "./similarity.ts";
import { Heap } from "../heap.ts";

// Clusters of near-duplicate memories. Candidates come from MinHash/LSH (never all pairs); each
// candidate pair is verified with the real similarity; pairs at or above the threshold join
// connected components, and each component is cut by average-linkage clustering (two groups merge
// only while their mean pairwise similarity reaches the threshold), so a chain a~b~c does not
// glue a to c on its own. A cluster's id is "c" and a hash of its sorted member ids: the same
// members give the same id on every run, whatever else the store holds. (The letter keeps an id
// of digits only from being read as a number on the command line.)

export const DEFAULT_THRESHOLD = 0.6;

export const CLUSTER_ID_RE = /^c[0-9a-f]{12}$/;

export function clusterId(memberIds: readonly string[]): string {
  return `c${setName(memberIds)}`;
}

/** A component up to this size is clustered on every pair's similarity; a larger one on its verified pairs. */
const DENSE_COMPONENT = 200;
/**
 * Each memory keeps its this many most similar verified pairs (a pair stays when either side keeps
 * it). A group of near-duplicates needs a few; a store where everything is alike (a small
 * vocabulary) would otherwise link every memory to hundreds, and cluster for minutes.
 */
const LINKS_PER_MEMORY = 8;

export interface ClusterInput {
  id: string;
  content: string;
  tags: readonly string[];
  entities: readonly string[];
  /** Items of different groups are never clustered together (project and sharing scope). */
  group: string;
}

export interface Cluster {
  id: string;
  /** Member ids, sorted. */
  members: string[];
  /** Mean pairwise similarity of the members. */
  cohesion: number;
}

export interface ClusterOptions {
  threshold?: number;
  lsh?: LshParams;
  /** Called once the features are made (the inputs' texts are no longer read): a caller's memory hint. */
  afterFeatures?: () => void;
}

export interface ClusterStats {
  items: number;
  candidates: number;
  verified: number;
}

class UnionFind {
  private readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(x: number): number {
    let r = x;
    while (this.parent[r] !== r) r = this.parent[r]!;
    while (this.parent[x] !== r) {
      const next = this.parent[x]!;
      this.parent[x] = r;
      x = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    // the smaller index is the root: the result does not depend on the order of unions
    if (ra < rb) this.parent[rb] = ra;
    else if (rb < ra) this.parent[ra] = rb;
  }
}

/** A binary max-heap of merge proposals, best first; ties by the smaller member index pair. */
interface Proposal {
  score: number;
  a: number;
  b: number;
  /** Tie-break: the smallest member index of each side, lower pair first. */
  ka: number;
  kb: number;
}

function better(x: Proposal, y: Proposal): boolean {
  if (x.score !== y.score) return x.score > y.score;
  if (x.ka !== y.ka) return x.ka < y.ka;
  return x.kb < y.kb;
}

/**
 * Average-linkage agglomeration of one component. `links` holds the known similarities between
 * members (local indices); a pair not in it counts as 0.
 */
function averageLinkage(size: number, links: Map<number, number>[], threshold: number): number[][] {
  const members: (number[] | null)[] = Array.from({ length: size }, (_, i) => [i]);
  const low: number[] = Array.from({ length: size }, (_, i) => i);
  // sums[c]: cluster handle -> total similarity to each neighbouring cluster handle
  const sums: Map<number, number>[] = links.map((l) => new Map(l));
  const heap = new Heap<Proposal>(better);
  const propose = (a: number, b: number, sum: number) => {
    const score = sum / (members[a]!.length * members[b]!.length);
    if (score < threshold) return;
    const [x, y] = low[a]! < low[b]! ? [a, b] : [b, a];
    heap.push({ score, a: x, b: y, ka: low[x]!, kb: low[y]! });
  };
  for (let a = 0; a < size; a++) for (const [b, s] of sums[a]!) if (a < b) propose(a, b, s);
  while (heap.size) {
    const p = heap.pop()!;
    const ma = members[p.a];
    const mb = members[p.b];
    if (!ma || !mb) continue; // one side was merged since: stale
    const m = members.length;
    members.push([...ma, ...mb]);
    low.push(Math.min(low[p.a]!, low[p.b]!));
    members[p.a] = null;
    members[p.b] = null;
    const merged = new Map<number, number>();
    for (const side of [p.a, p.b]) {
      for (const [c, s] of sums[side]!) {
        if (c === p.a || c === p.b) continue;
        merged.set(c, (merged.get(c) ?? 0) + s);
        sums[c]!.delete(side);
      }
    }
    sums.push(merged);
    sums[p.a]!.clear();
    sums[p.b]!.clear();
    for (const [c, s] of merged) {
      sums[c]!.set(m, s);
      propose(m, c, s);
    }
  }
  return members.filter((x): x is number[] => x !== null && x.length > 1);
}

export function cohesionOf(fs: readonly Features[]): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < fs.length; i++) {
    for (let j = i + 1; j < fs.length; j++) {
      sum += similarity(fs[i]!, fs[j]!);
      n++;
    }
  }
  return n ? sum / n : 1;
}

/** Round for output and records: 4 decimals are plenty and keep files stable. */
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Each member's `keep` most similar partners (ties: the smaller index), offered one pair at a
 * time: fixed-size typed arrays, however many pairs pass. The result is the same whatever order
 * the pairs come in.
 */
class Strongest {
  private readonly score: Float64Array;
  private readonly other: Int32Array;
  private readonly size: Int32Array;
  constructor(
    private readonly n: number,
    private readonly keep: number,
  ) {
    this.score = new Float64Array(n * keep);
    this.other = new Int32Array(n * keep);
    this.size = new Int32Array(n);
  }
  offer(i: number, j: number, s: number): void {
    this.into(i, j, s);
    this.into(j, i, s);
  }
  private into(x: number, y: number, s: number): void {
    const { keep, score, other } = this;
    const base = x * keep;
    let len = this.size[x]!;
    const beats = (p: number) => s > score[base + p]! || (s === score[base + p]! && y < other[base + p]!);
    if (len === keep) {
      if (!beats(len - 1)) return;
      len--;
    } else this.size[x] = len + 1;
    // insertion: the list stays best first
    let p = len;
    while (p > 0 && beats(p - 1)) {
      score[base + p] = score[base + p - 1]!;
      other[base + p] = other[base + p - 1]!;
      p--;
    }
    score[base + p] = s;
    other[base + p] = y;
  }
  /** Every kept pair once (i < j), in order: a pair stays when either side keeps it. */
  pairs(): [number, number, number][] {
    const { n, keep, score, other } = this;
    const seen = new Map<number, number>();
    for (let x = 0; x < n; x++) {
      for (let p = 0; p < this.size[x]!; p++) {
        const y = other[x * keep + p]!;
        seen.set(x < y ? x * n + y : y * n + x, score[x * keep + p]!);
      }
    }
    return [...seen.keys()].sort((a, b) => a - b).map((key) => {
      const i = Math.floor(key / n);
      return [i, key - i * n, seen.get(key)!];
    });
  }
}

export function findClusters(inputs: readonly ClusterInput[], opts: ClusterOptions = {}): { clusters: Cluster[]; stats: ClusterStats } {
  const threshold = opts.threshold ?? DEFAULT_THRESHOLD;
  // by id: every index-based tie-break then follows the ids, not the order the caller loaded them in
  const items = [...inputs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const vocab = new Vocabulary();
  const features = items.map((m) => featuresOf(m, vocab));
  opts.afterFeatures?.();
  const groupHash = new Map<string, number>();
  const lshItems = features.map((f, i) => {
    const hashes = new Uint32Array(f.words.length + f.tags.length + f.entities.length);
    let at = 0;
    for (const part of [f.words, f.tags, f.entities]) for (let x = 0; x < part.length; x++) hashes[at++] = vocab.hashes[part[x]!]!;
    const g = items[i]!.group;
    let group = groupHash.get(g);
    if (group === undefined) groupHash.set(g, (group = hashString(g)));
    return { hashes, group };
  });

  const stats: ClusterStats = { items: items.length, candidates: 0, verified: 0 };
  const strongest = new Strongest(items.length, LINKS_PER_MEMORY);
  candidatePairs(lshItems, opts.lsh ?? DEFAULT_LSH, (i, j) => {
    stats.candidates++;
    if (items[i]!.group !== items[j]!.group) return;
    const s = similarityAtLeast(features[i]!, features[j]!, threshold);
    if (s === null) return;
    stats.verified++;
    strongest.offer(i, j, s);
  });
  const edges = strongest.pairs();
  const uf = new UnionFind(items.length);
  for (const [i, j] of edges) uf.union(i, j);

  const components = new Map<number, Set<number>>();
  for (const [i, j] of edges) {
    for (const x of [i, j]) {
      const r = uf.find(x);
      let c = components.get(r);
      if (!c) components.set(r, (c = new Set()));
      c.add(x);
    }
  }
  const edgesOf = new Map<number, [number, number, number][]>();
  for (const e of edges) {
    const r = uf.find(e[0]);
    let list = edgesOf.get(r);
    if (!list) edgesOf.set(r, (list = []));
    list.push(e);
  }

  const clusters: Cluster[] = [];
  for (const [root, members] of components) {
    const comp = [...members].sort((a, b) => a - b);
    const local = new Map(comp.map((g, l) => [g, l]));
    const links: Map<number, number>[] = comp.map(() => new Map());
    if (comp.length <= DENSE_COMPONENT) {
      for (let a = 0; a < comp.length; a++) {
        for (let b = a + 1; b < comp.length; b++) {
          const s = similarity(features[comp[a]!]!, features[comp[b]!]!);
          links[a]!.set(b, s);
          links[b]!.set(a, s);
        }
      }
    } else {
      for (const [i, j, s] of edgesOf.get(root) ?? []) {
        const a = local.get(i)!;
        const b = local.get(j)!;
        links[a]!.set(b, s);
        links[b]!.set(a, s);
      }
    }
    for (const group of averageLinkage(comp.length, links, threshold)) {
      const globals = group.map((l) => comp[l]!).sort((a, b) => a - b);
      const ids = globals.map((g) => items[g]!.id);
      clusters.push({ id: clusterId(ids), members: ids, cohesion: round4(cohesionOf(globals.map((g) => features[g]!))) });
    }
  }
  clusters.sort((a, b) => b.cohesion - a.cohesion || b.members.length - a.members.length || (a.id < b.id ? -1 : 1));
  return { clusters, stats };
}

/** The similarity of two memories, as clustering measures it (for a link's strength). */
export function pairSimilarity(a: Omit<ClusterInput, "id" | "group">, b: Omit<ClusterInput, "id" | "group">): number {
  const vocab = new Vocabulary();
  return round4(similarity(featuresOf(a, vocab), featuresOf(b, vocab)));
}
