import * as v from "../core/model/valibot.ts";
import { type StoreMeta, StoreSettingsSchema, storeMetaToJson } from "../core/model/store-meta.ts";
import { STORAGE_VERSION } from "../core/model/vocab.ts";
import { writeAtomic } from "./atomic-write.ts";
import type { StoreFs } from "./fs-port.ts";
import { KIND_DIR, LOCAL_DIR, META_FILE } from "./layout.ts";

// The files a new store starts with. Existing ones are left as they are, so init is safe to
// run again on a store.

export const STORE_GITATTRIBUTES = `# memsync store: canonical JSON records, merged field by field by memsync's merge driver
*.json text eol=lf
memories/** merge=memsync
relations/** merge=memsync
${META_FILE} merge=memsync
`;

export const STORE_GITIGNORE = `# machine-local state: derived index, machine id, pending work
${LOCAL_DIR}/
# temp files of interrupted atomic writes
*.tmp
`;

export interface InitResult {
  created: string[];
  existed: boolean;
}

export function writeStoreSkeleton(fs: StoreFs, root: string, nowSeconds: number): InitResult {
  fs.mkdirp(root);
  const existed = fs.stat(`${root}/${META_FILE}`)?.isFile ?? false;
  const created: string[] = [];
  const put = (name: string, text: string) => {
    if (fs.stat(`${root}/${name}`)) return;
    writeAtomic(fs, root, name, text);
    created.push(name);
  };
  const meta: StoreMeta = {
    storage_version: STORAGE_VERSION,
    created_at: nowSeconds,
    machine_id: null,
    last_gc_at: null,
    last_consolidation_at: null,
    migrated_from: null,
    settings: v.parse(StoreSettingsSchema, {}),
  };
  put(META_FILE, storeMetaToJson(meta));
  put(".gitattributes", STORE_GITATTRIBUTES);
  put(".gitignore", STORE_GITIGNORE);
  for (const d of [KIND_DIR.memory, KIND_DIR.relation, LOCAL_DIR]) fs.mkdirp(`${root}/${d}`);
  return { created, existed };
}
