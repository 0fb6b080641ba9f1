import { redactSecrets, stripPrivate } from "../redact.ts";
import { machineMade, machineShape, PROMPT } from "./machine-made.ts";
import { outputLeadEnd, personVoice } from "./output-lead.ts";

// Getting the prose out of a prompt before anything is extracted from it: private spans and
// secrets go first; then fenced code, tool blocks (<system-reminder>...), pasted logs, tool
// warnings, code lines and base64 blobs, none of which states a decision. Then sentences.
// Everything here is linear in the length of the text (one pass per step, no nested scans).

export const MAX_PROMPT_CHARS = 50_000;

export interface Prepared {
  /** The prose left, one line per input line kept. */
  text: string;
  /** What was set aside, for the report: "1 code block", "12 log lines". */
  ignored: string[];
  /** Set when nothing at all is to be read from the text, with the reason. */
  skip?: string;
  /** Secrets replaced (kinds), private spans removed. */
  redacted: string[];
  privateRemoved: boolean;
  /** The share of the text's non-blank characters set aside as pasted (code, logs, tool output), 0..1. */
  pastedShare: number;
  /** Sentences that introduce pasted output ("the build fails with this:"): a decision may be said there, never a problem. */
  intros: string[];
  /** When the text holds nothing but output and its introduction: why nothing would be read, if the introduction holds nothing. */
  quiet?: string;
}

/** Blocks Claude Code and tools wrap around text that is not the user's own words. */
const TOOL_TAG = /<([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^<>]{0,200})?>/g;

/** Remove <tool-tag>...</tool-tag> blocks. Close tags are found in one pass first. */
function removeToolBlocks(text: string): { text: string; count: number } {
  if (!text.includes("</")) return { text, count: 0 };
  const closes = new Map<string, number[]>();
  const CLOSE = /<\/([a-z][a-z0-9]*(?:[-_][a-z0-9]+)+)\s*>/g;
  for (let m = CLOSE.exec(text); m; m = CLOSE.exec(text)) {
    const list = closes.get(m[1]!) ?? [];
    list.push(m.index);
    closes.set(m[1]!, list);
  }
  if (closes.size === 0) return { text, count: 0 };
  const next = new Map<string, number>();
  let out = "";
  let at = 0;
  let count = 0;
  TOOL_TAG.lastIndex = 0;
  for (let m = TOOL_TAG.exec(text); m; m = TOOL_TAG.exec(text)) {
    const list = closes.get(m[1]!);
    if (!list) continue;
    let i = next.get(m[1]!) ?? 0;
    while (i < list.length && list[i]! < m.index) i++;
    next.set(m[1]!, i);
    if (i >= list.length) continue;
    const close = list[i]!;
    const closeEnd = text.indexOf(">", close) + 1;
    out += `${text.slice(at, m.index)}\n`;
    at = closeEnd;
    count++;
    next.set(m[1]!, i + 1);
    TOOL_TAG.lastIndex = closeEnd;
  }
  return { text: out + text.slice(at), count };
}

// A line a tool printed, not a person: timestamps, log levels, stack frames, compiler and package
// manager diagnostics, test runner summaries, shell prompts, diff hunks.
export const LOG_LINE =
  /^\s*(?:(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{1,2}\s+\d{2}:\d{2}:\d{2}\b|#\d+\s+(?:\[|ERROR|\d+\.\d+\s)|={3,}|-{3,}\s*\S|FAILED\b|ERROR\b|Ran\s+\d+\s+tests?\b|Module (?:build|parse) failed|Exit Code:|Restart Count:|OOMKilled\b|\d+\)\s+\S|\s*●\s|Expected:|Received:|\[?\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}|\[?\d{1,2}:\d{2}:\d{2}\b|\[?(?:INFO|WARN|WARNING|ERROR|ERR|DEBUG|TRACE|FATAL|CRITICAL|NOTICE|SEVERE|PANIC)\b\]?|at\s+[\w$.<>[\]]+\s+\(|at\s+\S+:\d+:\d+|File\s+"[^"]*",\s+line\s+\d+|Traceback\b|[A-Z]\w*(?:Error|Exception):\s|panic:\s|goroutine\s+\d+|Caused by:\s|\.\.\.\s+\d+\s+more\b|\[\s*\d+\.\d{3,6}\]\s[^:\n]{1,40}:|Error from server \()/;
export const TOOL_LINE =
  /^\s*(?:(?:npm|yarn|pnpm|bun|pip|cargo|go|deno)\s+(?:WARN|ERR!?|warn|error|notice)\b|warning(?:\[[\w-]+\]|\s+[A-Z]{1,4}\d{2,5})?:|error(?:\[[\w-]+\]|\s+[A-Z]{1,4}\d{2,5})?:|Found \d+ errors? in\b|note:|hint:|help:|\(node:\d+\)|\w*Warning:|⚠|✖|✗|✘|×\s|\$\s+\S|>>>\s|-->\s|==>\s|@@\s|\+\+\+\s|---\s[ab/]|(?:PASS|FAIL)\s+\S|(?:not )?ok\s+\d+\b|\[Request interrupted by user|Caveat: The messages below were generated|Tests?:\s+\d|\d+\s+(?:passing|failing|pending|passed|failed|errors?|warnings?)\b|[\w./\\-]+\.[a-z]{1,5}:\d+(?::\d+)?(?::|\s|$)|[\w./\\-]+\.[a-z]{1,5}\(\d+,\d+\):|\S+\s+v?\d+\.\d+\.\d+\s+compiled\b|compiled (?:successfully|with \d+ (?:errors?|warnings?))\b|(?:[✓✔]\s+)?\d+ modules? transformed|=\s+(?:note|help):\s|(?:BUILD\s+)?(?:FAILURE|SUCCESS|SUCCESSFUL)\b\s*:|BUILD\s+(?:FAILED|SUCCESSFUL)\b|\*\s+(?:What went wrong|Try|Get more help|Exception is):|Execution failed for task\b|Successfully (?:built|tagged|installed)\s+\S|(?:Error: )?Process completed with exit code\s+\d)/;
// Strings one of which every match of LOG_LINE / TOOL_LINE holds, read off their alternatives (the
// patterns are case-sensitive: so are these; ":" stands for every alternative with a colon, "FAIL"
// for FAILED and FAILURE, "ERR" for ERROR). A line holding none is not searched: each pattern's
// first search compiles ~1,000 characters (0.25-0.4 ms of a cold hook). tests/core/line-hints.test.ts
// holds each list to its pattern.
export const LOG_LINE_HINTS: readonly string[] = [
  ":", "#", "===", "---", "FAIL", "ERR", "Ran", "failed", "OOMKilled", ")", "\u25cf", "INFO", "WARN", "DEBUG", "TRACE", "FATAL", "CRITICAL",
  "NOTICE", "SEVERE", "PANIC", "(", "File", "Traceback", "goroutine", "...",
];
export const TOOL_LINE_HINTS: readonly string[] = [
  "WARN", "ERR", "warn", "error", "notice", ":", "\u26a0", "\u2716", "\u2717", "\u2718", "\u00d7", "$", ">>>", "-->", "==>", "@@", "+++", "---",
  "PASS", "FAIL", "ok", "passing", "failing", "pending", "passed", "failed", "compiled", "transformed", "SUCCESS", "Successfully",
  "Process completed", "[Request",
];
const holds = (line: string, hints: readonly string[]) => hints.some((h) => line.includes(h));
/** LOG_LINE.test, searched only in a line holding one of its hints. */
export const isLogLine = (line: string) => holds(line, LOG_LINE_HINTS) && LOG_LINE.test(line);
/** TOOL_LINE.test, searched only in a line holding one of its hints. */
export const isToolLine = (line: string) => holds(line, TOOL_LINE_HINTS) && TOOL_LINE.test(line);
// A test run's tally ("pytest: 3 failed, 118 passed, 2 skipped in 41s"): two counts of outcomes on one line.
const TALLY = /\b\d+\s+(?:failed|passed|skipped|errors?|xfailed|deselected|todo|pending)\b[^\n]{0,40}?\b\d+\s+(?:failed|passed|skipped|errors?|xfailed|deselected|todo|pending)\b/i;
// Lines a tool prints that people write too: "note: ...", "1) ...", "2) ..." (a list). They are
// a tool's only beside a line no person writes (an error line, a log line, a test summary).
const PERSON_TOO = /^(?:note|hint|help):\s|^\s?\d+\)\s+\S/i;
// Lines in a tool's voice that a person might write too ("build failed: ...", "vite v5.2.0
// building for production..."): a tool's only beside a line no person writes.
const TOOL_VOICE = /^\s*(?:[\w-]+\s+)?(?:failed|failure|error)\s*:\s|^\s*[\w@/.-]+\s+v?\d+\.\d+\.\d+\s+[a-z]+ing\b|^\s*failed to (?:compile|build|bundle|resolve)\b/i;
// A line of source code pasted without a fence.
const CODE_LINE =
  /^\s*(?:import\s+[\w{*].*\sfrom\s|import\s+["']|export\s+(?:default|const|function|class|interface|type)\b|def\s+\w+\s*\(|class\s+\w+[\s:({<]|(?:async\s+)?function\s*\w*\s*\(|return\s|#include\b|package\s+[\w.]+;?\s*$|using\s+[\w.]+;|fn\s+\w+\s*[(<]|func\s+[\w(]|(?:const|let|var|val|auto|int|string|bool)\s+[\w$]+\s*(?::\s*[\w<>[\]|]+\s*)?=|(?:SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\s+[A-Z*(])|[;{]\s*$|^\s*[}\])]/;
const FENCE = /^\s*(?:```|~~~)/;
// Claude Code's own words in a prompt: a slash command, the summary that continues a compacted
// session (it repeats old decisions; they were captured when they were made)
const SLASH_COMMAND = /^\s*\/[a-z][\w:-]*(?:\s|$)/;
const SESSION_SUMMARY = /^\s*This session is being continued from a previous conversation/i;

function letterRatio(line: string): number {
  let letters = 0;
  let other = 0;
  for (const ch of line) {
    if (/\p{L}/u.test(ch)) letters++;
    else if (!/\s/.test(ch)) other++;
  }
  return letters + other === 0 ? 1 : letters / (letters + other);
}

const BINARY = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFD]/g;
// long unbroken runs of base64/hex: data, not words (a URL breaks at "." and ":")
const BLOB = /[A-Za-z0-9+/=_-]{80,}/g;

export function prepareText(raw: string): Prepared {
  const base: Omit<Prepared, "text"> = { ignored: [], redacted: [], privateRemoved: false, pastedShare: 0, intros: [] };
  if (raw.length > MAX_PROMPT_CHARS) {
    return { ...base, text: "", skip: `the text is too long to read (${raw.length} characters; at most ${MAX_PROMPT_CHARS})` };
  }
  const binary = raw.match(BINARY)?.length ?? 0;
  if (raw.includes("\u0000") || binary > 2) return { ...base, text: "", skip: "the text is binary data" };

  if (SLASH_COMMAND.test(raw)) return { ...base, text: "", skip: "a slash command" };
  if (SESSION_SUMMARY.test(raw)) return { ...base, text: "", skip: "a summary of an earlier session, not a prompt" };

  const priv = stripPrivate(raw);
  const red = redactSecrets(priv.text);
  const out: Prepared = { ...base, text: "", redacted: red.found, privateRemoved: priv.removed };

  const tools = removeToolBlocks(red.text);
  if (tools.count) out.ignored.push(`${tools.count} tool block${tools.count === 1 ? "" : "s"}`);

  let blobs = 0;
  let blobChars = 0;
  const noBlobs = tools.text.replace(BLOB, (m) => {
    blobs++;
    blobChars += m.length;
    return " ";
  });

  const kept: string[] = [];
  let fenced = 0;
  let codeLines = 0;
  let logLines = 0;
  let toolLines = 0;
  let inFence = false;
  let prose = 0;
  let quoted = 0;
  const lines = noBlobs.split(/\r?\n/);
  const printed = (line: string) => isLogLine(line) || isToolLine(line);
  // (two lines in a tool's voice are a tool's output too: "Failed to compile." then "Type error: ...")
  const toolBeside = lines.some((l) => printed(l) && !PERSON_TOO.test(l)) || lines.filter((l) => TOOL_VOICE.test(l)).length >= 2;
  let machineLines = 0;
  let introOnly = 0;
  let pastedChars = 0;
  let proseChars = 0;
  /** Per input line: its index in `kept` when kept as prose, -1 when set aside, -2 when blank. */
  const keptAt: number[] = [];
  /** After a lead that names output ("cmake output:"): "armed" until its first line, "taken" after it, until a blank line or a person's words. */
  let afterLead: "off" | "armed" | "taken" = "off";
  let leadAlone = "";
  for (const line of lines) {
    if (FENCE.test(line)) {
      if (!inFence) fenced++;
      inFence = !inFence;
      keptAt.push(-1);
      if (afterLead === "armed") afterLead = "taken";
      continue;
    }
    if (inFence) {
      pastedChars += line.trim().length;
      keptAt.push(line.trim() ? -1 : -2);
      continue;
    }
    if (!line.trim()) {
      kept.push("");
      keptAt.push(-2);
      // (the output may start after a blank line: "cmake output:", blank, the paste)
      if (afterLead === "taken") afterLead = "off";
      continue;
    }
    // the lines after a lead that names output are the tool's, whatever their shape, until a person's own words
    if (afterLead !== "off") {
      if (!personVoice(line)) {
        // a lead alone on its line only introduces the output (as "the build fails with this:")
        if (afterLead === "armed" && leadAlone && !out.intros.includes(leadAlone)) {
          out.intros.push(leadAlone);
          introOnly++;
        }
        afterLead = "taken";
        machineLines++;
        keptAt.push(-1);
        pastedChars += line.trim().length;
        kept.push("");
        continue;
      }
      afterLead = "off";
    }
    const leadEnd = outputLeadEnd(line);
    if (leadEnd !== -1) {
      // "tsc output after the rebase: src/x.ts(18,5): error TS2322: ... any idea?": the lead is the
      // person's, what follows it the tool's, up to a sentence in the person's own voice
      const lead = line.slice(0, leadEnd).trim();
      const rest = splitSentences(line.slice(leadEnd));
      const own = rest.findIndex((x) => personVoice(x));
      const pasted = own === -1 ? rest : rest.slice(0, own);
      if (pasted.length) {
        const said = own === -1 ? [] : rest.slice(own);
        keptAt.push(kept.length);
        kept.push([lead, ...said].join("\n"));
        prose++;
        const pastedLength = pasted.join(" ").length;
        proseChars += line.trim().length - pastedLength;
        pastedChars += pastedLength;
        machineLines++;
        out.intros.push(splitSentences(lead).pop()!);
        if (!said.length && splitSentences(lead).length === 1) introOnly++;
        afterLead = own === -1 ? "taken" : "off";
        continue;
      }
      if (!rest.length) {
        afterLead = "armed";
        leadAlone = lead;
      }
    }
    const personToo = !toolBeside && PERSON_TOO.test(line);
    // a markdown quote ("> Always set a timeout ..."): another text's words, not the user's
    if (/^\s*>\s/.test(line)) {
      quoted++;
      kept.push("");
      keptAt.push(-1);
      continue;
    }
    if (!personToo && isLogLine(line)) logLines++;
    else if (toolBeside && TOOL_VOICE.test(line)) toolLines++;
    else if (!personToo && (isToolLine(line) || TALLY.test(line))) toolLines++;
    else if (CODE_LINE.test(line) || (line.trim().length >= 12 && letterRatio(line) < 0.45)) codeLines++;
    else if (machineMade(line)) machineLines++;
    else {
      keptAt.push(kept.length);
      kept.push(line);
      prose++;
      proseChars += line.trim().length;
      continue;
    }
    keptAt.push(-1);
    pastedChars += line.trim().length;
    // "the build failed with this:" only introduces what was pasted: its last sentence is read for
    // a decision only ("We're switching to Playwright; this flake was the last straw:"), the
    // sentences before it as any ("Team agreed today: ... For reference, the scrape errors:")
    const prev = lastProse(kept);
    if (prev !== -1 && /:\s*$/.test(kept[prev]!) && kept.length - prev <= 2) {
      const sentences = splitSentences(kept[prev]!);
      const last = sentences[sentences.length - 1];
      if (last && !out.intros.includes(last)) {
        out.intros.push(last);
        if (sentences.length === 1) introOnly++;
      }
    }
    kept.push(""); // a dropped line still ends the sentence before it
  }
  // What a person writes stands apart from what they paste. In a paragraph (lines with no blank
  // between): a line with output both above and below it is output too ("For more information
  // about this error, try ...", "stack backtrace:"), as is a line indented under or over output
  // (blank lines between), or one after a "$ command"; a line with one shape of output is output
  // too after output announced ("From the browser console:") or in a paragraph at least two thirds
  // output ("Step 7/12 : RUN pip install ...").
  if (prose && machineLines + logLines + toolLines + codeLines > 0) {
    const aside = (i: number) => i >= 0 && i < lines.length && keptAt[i] === -1;
    /** The nearest line above (step -1) or below (+1) that is not blank: output's blocks are often split by blank lines. */
    const nonBlank = (i: number, step: number) => {
      let j = i + step;
      while (j >= 0 && j < lines.length && keptAt[j] === -2) j += step;
      return j;
    };
    const setAside = (i: number) => {
      proseChars -= lines[i]!.trim().length;
      pastedChars += lines[i]!.trim().length;
      kept[keptAt[i]!] = "";
      keptAt[i] = -1;
      prose--;
      machineLines++;
    };
    for (let from = 0; from < lines.length; ) {
      let to = from;
      while (to < lines.length && keptAt[to] !== -2) to++;
      let lastOut = -1;
      for (let i = to - 1; i >= from && lastOut === -1; i--) if (aside(i)) lastOut = i;
      let afterCommand = false;
      let announced = false;
      let seenOut = false;
      const own: number[] = [];
      for (let i = from; i < to; i++) {
        if (aside(i)) {
          afterCommand ||= PROMPT.test(lines[i]!);
          announced ||= !seenOut && i > from && /:\s*$/.test(lines[i - 1]!);
          seenOut = true;
        } else if ((seenOut && i < lastOut) || afterCommand || (announced && machineShape(lines[i]!) > 0) || (/^\s{2,}\S/.test(lines[i]!) && (aside(nonBlank(i, -1)) || aside(nonBlank(i, 1))))) setAside(i);
        else own.push(i);
      }
      if (own.length > 0 && to - from - own.length >= own.length) for (const i of own) if (machineShape(lines[i]!) > 0) setAside(i);
      from = to + 1;
    }
  }
  out.pastedShare = pastedChars + proseChars === 0 ? 0 : pastedChars / (pastedChars + proseChars);
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  if (fenced) out.ignored.push(plural(fenced, "code block"));
  if (codeLines) out.ignored.push(plural(codeLines, "code line"));
  if (logLines) out.ignored.push(plural(logLines, "log line"));
  if (toolLines) out.ignored.push(plural(toolLines, "tool output line"));
  if (machineLines) out.ignored.push(plural(machineLines, "machine-made line"));
  if (blobs) out.ignored.push(plural(blobs, "base64 or binary blob"));
  if (quoted) out.ignored.push(plural(quoted, "quoted line"));

  // inline code keeps its words (`var` is the name of a thing), long spans are code
  out.text = kept.join("\n").replace(/`([^`\n]{0,200})`/g, (_, inner: string) => (inner.length <= 60 ? inner : " "));
  if (prose - introOnly <= 0 || !/\p{L}/u.test(out.text)) {
    const why =
      blobChars > 0 && blobChars >= tools.text.length / 2
        ? "the text is base64 or binary data"
        : logLines + toolLines + machineLines > 0 && logLines + toolLines + machineLines >= codeLines + fenced
          ? "the text is log or tool output"
          : fenced + codeLines > 0
            ? "the text is code"
            : quoted > 0
              ? "the text is quoted"
              : priv.removed && !red.text.trim()
              ? "the text is all <private>"
              : "the text is empty";
    // (an introduction of output is read for a decision first; nothing there, and this is the reason)
    if (prose > 0 && introOnly > 0 && /\p{L}/u.test(out.text)) out.quiet = why;
    else out.skip = why;
  }
  return out;
}

/** The index of the last non-empty line kept, -1 if none. */
function lastProse(kept: readonly string[]): number {
  for (let i = kept.length - 1; i >= 0 && i >= kept.length - 2; i--) if (kept[i]!.trim()) return i;
  return -1;
}

const ABBREVIATIONS = new Set(["e.g", "i.e", "etc", "vs", "approx", "incl", "cf", "mr", "mrs", "dr", "no", "fig", "ca", "resp", "esp"]);

/** Sentences, in order: lines split at . ! ? followed by a space (not after e.g., vs., a version). */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/^\s*(?:#{1,6}\s+|>\s+|(?:[-*•+]|\d{1,3}[.)])\s+)/, "").trim();
    if (!line) continue;
    let start = 0;
    // one character at a time: /[.!?]+(?=\s)/ backtracks over a long run of dots
    const END = /[.!?](?=\s|$)/g;
    for (let m = END.exec(line); m; m = END.exec(line)) {
      const end = m.index + 1;
      const before = /([\p{L}.]+)$/u.exec(line.slice(Math.max(start, m.index - 12), m.index))?.[1]?.toLowerCase() ?? "";
      if (m[0] === "." && (ABBREVIATIONS.has(before) || ABBREVIATIONS.has(before.replace(/\.$/, "")))) continue;
      const s = line.slice(start, end).trim();
      if (s) out.push(s);
      start = end;
    }
    const rest = line.slice(start).trim();
    if (rest) out.push(rest);
  }
  return out;
}
