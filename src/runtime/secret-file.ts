import fs from "node:fs";

// A secret read from a file (serve --token-file, the remote's credentials file) is refused when the
// file's group or others may read it, as ssh refuses such a key: whoever can read it can act as
// its owner. The file is opened first (a symbolic link is followed, the link's target judged) and
// judged by what was opened, so it cannot be swapped between the check and the read.

export type SecretFileProblem = { kind: "unreadable"; code: string } | { kind: "not-a-file" } | { kind: "open-to-others"; mode: number };

/** The file's text, or why it may not be used. */
export function readSecretFile(file: string): { text: string } | SecretFileProblem {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (e) {
    return { kind: "unreadable", code: (e as { code?: string }).code ?? "error" };
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return { kind: "not-a-file" };
    // Windows keeps no such mode bits: there the file's ACL decides
    if (process.platform !== "win32" && (st.mode & 0o077) !== 0) return { kind: "open-to-others", mode: st.mode & 0o777 };
    return { text: fs.readFileSync(fd, "utf8") };
  } catch (e) {
    return { kind: "unreadable", code: (e as { code?: string }).code ?? "error" };
  } finally {
    fs.closeSync(fd);
  }
}

/** One line saying what is wrong with a secret file and how to fix it. */
export function secretFileMessage(what: string, file: string, p: SecretFileProblem): string {
  switch (p.kind) {
    case "unreadable":
      return `cannot read ${what} ${file}: ${p.code}`;
    case "not-a-file":
      return `${what} ${file} is not a file`;
    case "open-to-others":
      return `${what} ${file} can be read by ${p.mode & 0o007 ? "others" : "its group"} (mode ${p.mode.toString(8).padStart(4, "0")}): it holds a secret; run chmod 600 ${file}`;
  }
}
