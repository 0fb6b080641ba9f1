import { loadCodec } from "../store/store.ts";
import { kindOfPath, mergeFileTexts } from "../sync/merge-file.ts";

// One file merged as git's merge driver asks (faces/cli/commands/merge-driver.ts reads and writes
// the files): a record field by field, anything else as text with conflict markers.

export async function mergeRecordTexts(repoPath: string | undefined, base: string | null, ours: string, theirs: string): Promise<{ text: string; clean: boolean }> {
  const codec = await loadCodec();
  const kind = repoPath ? kindOfPath(repoPath) : null;
  return mergeFileTexts(codec, kind, base, ours, theirs, { ours: "ours", base: "base", theirs: "theirs" });
}
