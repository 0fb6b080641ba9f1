import { corrupt } from "../core/errors.ts";
import { objectWritten } from "./fault.ts";
import { writeLooseObject } from "./loose-objects.ts";
import type { GitObject } from "./objects.ts";
import { PackWriter } from "./pack-write.ts";
import { progress } from "./progress.ts";
import { objectId } from "./sha1.ts";

// Where the objects a fetch copies from a repository on a local path go, as git's fetch decides
// (transfer.unpackLimit): fewer than UNPACK_LIMIT are written as loose files, more are kept as one
// pack. A pull of 100 changed memories copies ~103 objects: one pack and its index (written whole
// and renamed into place, pack-write.ts) instead of 103 files each created and renamed. Either
// way nothing appears before the objects it names: the loose files are written children first
// once the walk is done, and a pack appears whole or not at all.

/** git's transfer.unpackLimit default: this many objects or more are kept as a pack. */
export const UNPACK_LIMIT = 100;

export class CopySink {
  private held: { oid: string; obj: GitObject }[] = [];
  private pack: PackWriter | null = null;
  count = 0;

  constructor(
    private readonly src: string,
    private readonly dst: string,
  ) {}

  /** Take one object read from `src` (children before the objects naming them); its bytes must hash to its id. */
  add(oid: string, obj: GitObject): void {
    if (this.count++ % 200 === 0) progress("copying objects", this.count - 1);
    if (objectId(obj.type, obj.content) !== oid) throw corrupt(`git object ${oid} in ${this.src} is damaged (its content does not hash to its id) (run: memsync doctor)`);
    if (this.pack) return this.append(oid, obj);
    this.held.push({ oid, obj });
    if (this.held.length < UNPACK_LIMIT) return;
    this.pack = new PackWriter(this.dst);
    for (const h of this.held) this.append(h.oid, h.obj);
    this.held = [];
  }

  private append(oid: string, obj: GitObject): void {
    this.pack!.add(oid, obj.type, obj.content);
    objectWritten();
  }

  /** Put everything in place: the pack (made durable), or the few objects as loose files, in the order taken. */
  async finish(): Promise<void> {
    if (this.pack) {
      this.pack.finish();
      return;
    }
    for (const h of this.held) await writeLooseObject(this.dst, h.obj.type, h.obj.content);
    this.held = [];
  }

  /** Drop a pack being written (a failed copy). */
  abort(): void {
    this.pack?.abort();
  }
}
