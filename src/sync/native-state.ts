import fs from "node:fs";
import { conflict } from "../core/errors.ts";
import { unmergedIndexPaths } from "./git-index.ts";

// A native git operation left half done in the store (a `git pull` stopped at a conflict, a
// rebase, a cherry-pick). memsync refuses to commit, pull or push over it: committing the
// half-merged files would record the merge wrongly (a modify/delete conflict leaves both the
// merged usage and the old one, and counts come out too high), and moving the branch under git
// would confuse git's own `--continue`/`--abort`. The user finishes or aborts it with git, then
// syncs; memsync's own merge then applies its rules.

const STATES: { file: string; what: string; todo: string }[] = [
  { file: "MERGE_HEAD", what: "a git merge is in progress", todo: "`git merge --abort` (memsync sync then merges with its own rules), or resolve the files and `git commit`" },
  { file: "CHERRY_PICK_HEAD", what: "a git cherry-pick is in progress", todo: "`git cherry-pick --abort`, or resolve the files and `git cherry-pick --continue`" },
  { file: "REVERT_HEAD", what: "a git revert is in progress", todo: "`git revert --abort`, or resolve the files and `git revert --continue`" },
  { file: "rebase-merge", what: "a git rebase is in progress", todo: "`git rebase --abort`, or resolve the files and `git rebase --continue`" },
  { file: "rebase-apply", what: "a git rebase or am is in progress", todo: "`git rebase --abort` (or `git am --abort`), or finish it with `--continue`" },
];

/** Throws "conflict" (exit 5) when native git is in the middle of an operation in this store. */
export function refuseNativeOperation(root: string): void {
  const gitdir = `${root}/.git`;
  for (const s of STATES) {
    if (fs.existsSync(`${gitdir}/${s.file}`)) {
      throw conflict(`${s.what} in ${root}: memsync changes nothing until it is finished; run ${s.todo}, then memsync sync`, { state: s.file });
    }
  }
  const unmerged = unmergedIndexPaths(gitdir);
  if (unmerged.length) {
    throw conflict(
      `git's index in ${root} holds ${unmerged.length} unresolved conflict${unmerged.length === 1 ? "" : "s"} (${unmerged.slice(0, 3).join(", ")}${unmerged.length > 3 ? ", ..." : ""}): memsync changes nothing until they are resolved; fix the files and \`git add\` them (or \`git reset --merge\`), then memsync sync`,
      { unmerged },
    );
  }
}
