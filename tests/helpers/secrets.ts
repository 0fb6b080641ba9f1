import fs from "node:fs";

// The secrets corpus (tests/core/data/secrets.json): secrets in the forms they turn up in prompts.

export interface SecretCase {
  kind: string;
  text: string;
  secret: string;
}

/** The corpus, with the prefix-splitting dots removed (see the file's "about"). */
export function loadSecrets(): SecretCase[] {
  const raw = JSON.parse(fs.readFileSync(new URL("../core/data/secrets.json", import.meta.url), "utf8")) as { secrets: SecretCase[] };
  return raw.secrets.map((s) => ({ kind: s.kind, text: s.text.replaceAll("·", ""), secret: s.secret.replaceAll("·", "") }));
}

/** The secret, or a telling piece of it (its last 12 characters), appears in text. */
export function leaks(text: string, secret: string): boolean {
  return text.includes(secret) || text.includes(secret.slice(-12));
}
