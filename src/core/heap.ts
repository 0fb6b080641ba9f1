// A binary heap: the item `before` puts first comes out first. Pure; used by clustering (best
// proposal first) and by the commit walk (newest commit first).

export class Heap<T> {
  private readonly xs: T[] = [];
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.xs.length;
  }

  items(): readonly T[] {
    return this.xs;
  }

  push(x: T): void {
    const xs = this.xs;
    xs.push(x);
    let i = xs.length - 1;
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (!this.before(xs[i]!, xs[up]!)) break;
      [xs[i], xs[up]] = [xs[up]!, xs[i]!];
      i = up;
    }
  }

  pop(): T | undefined {
    const xs = this.xs;
    const top = xs[0];
    const last = xs.pop();
    if (xs.length && last !== undefined) {
      xs[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let first = i;
        if (l < xs.length && this.before(xs[l]!, xs[first]!)) first = l;
        if (r < xs.length && this.before(xs[r]!, xs[first]!)) first = r;
        if (first === i) break;
        [xs[i], xs[first]] = [xs[first]!, xs[i]!];
        i = first;
      }
    }
    return top;
  }
}
