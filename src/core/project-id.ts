// A project is identified the same way on every machine: by its git remote, normalized, never by a
// local path. git@github.com:Org/Repo.git, https://user:token@github.com/org/repo and
// ssh://git@github.com:22/org/repo.git are all `github.com/org/repo`: lowercase, no scheme, no
// credentials, no port, no `.git`.

/** Where a repository has no usable remote, its folder name with this prefix (see ops/project.ts). */
export const LOCAL_PROJECT_PREFIX = "local:";

function tidyPath(p: string): string {
  return p
    .replace(/[?#].*$/, "")
    .replace(/\/{2,}/g, "/")
    .replace(/^\/+|\/+$/g, "")
    .replace(/\.git$/i, "")
    .replace(/\/+$/, "");
}

/** Hosts that spell one repository two ways (Azure DevOps over ssh and https). */
function canonicalHostPath(host: string, path: string): [string, string] {
  let h = host.replace(/^www\./, "");
  let p = path;
  if (h === "ssh.dev.azure.com" || h === "vs-ssh.visualstudio.com") {
    h = "dev.azure.com";
    p = p.replace(/^v3\//, "");
  }
  p = p.replace(/\/_git\//, "/");
  return [h, p];
}

/** The project id of a remote URL, or null for a local path or something that is no URL. */
export function normalizeRemoteUrl(raw: string): string | null {
  const url = raw.trim();
  if (!url || /\s/.test(url)) return null;
  let host: string;
  let path: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i.exec(url);
  if (scheme) {
    if (scheme[1]!.toLowerCase() === "file") return null;
    const rest = scheme[2]!;
    const slash = rest.indexOf("/");
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    path = slash === -1 ? "" : rest.slice(slash + 1);
    const at = authority.lastIndexOf("@");
    host = (at === -1 ? authority : authority.slice(at + 1)).replace(/:\d*$/, "");
    // ssh://host:org/repo is not valid, but scp-style pasted behind ssh:// is common enough
    const colon = host.indexOf(":");
    if (colon !== -1) {
      path = `${host.slice(colon + 1)}/${path}`;
      host = host.slice(0, colon);
    }
  } else {
    // scp-like: [user@]host:path (a single letter before the colon is a Windows drive)
    const scp = /^(?:[^@/]+@)?([^:/]{2,}):(?!\/\/)(.+)$/.exec(url);
    if (!scp) return null;
    host = scp[1]!;
    path = scp[2]!;
  }
  host = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (!host || !/^[a-z0-9.-]+$/.test(host)) return null;
  const [h, p] = canonicalHostPath(host, tidyPath(path).toLowerCase());
  if (!p) return null;
  return `${h}/${p}`;
}

/** A remote "origin" in git config text (or the only remote there is), as written. */
export function remoteUrlFromConfig(configText: string): string | null {
  const urls = new Map<string, string>();
  let remote: string | null = null;
  for (const rawLine of configText.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (section) {
      remote = section[1]!.toLowerCase() === "remote" && section[2] !== undefined ? section[2].replace(/\\(.)/g, "$1") : null;
      continue;
    }
    if (remote === null) continue;
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!kv || kv[1]!.toLowerCase() !== "url" || urls.has(remote)) continue;
    let value = kv[2]!.replace(/\s+[#;].*$/, "").trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    urls.set(remote, value);
  }
  if (urls.has("origin")) return urls.get("origin")!;
  const names = [...urls.keys()].sort();
  return names.length ? urls.get(names[0]!)! : null;
}

/** The id of a repository with no usable remote: `local:<folder name>`. */
export function localProjectId(folderName: string): string | null {
  const name = folderName.trim().toLowerCase().replace(/\.git$/, "");
  return name ? `${LOCAL_PROJECT_PREFIX}${name}` : null;
}
