// Output a person names before pasting it: "cmake output:", "dbt test results: Failure in test ...",
// "the hardware-in-the-loop run:", "seeing this in the browser console after deploy: Uncaught ...";
// and another's document quoted the same way ("the vendor's release notes: they dropped TLS 1.1").
// What follows such a lead is the tool's text, whatever its shape (many tools print plain words:
// "Could not find a package configuration file"), so its trouble words are the tool's, not a
// problem the person states. Only words in a person's own voice after the lead are read again:
// the first person, or an explanation ("because", "every time", "the problem is").

/** A noun naming what a program printed. */
const OUTPUT_NOUN = String.raw`(?:output|results?|logs?|run|console|stderr|stdout|trace|traceback|backtrace|stack\s?trace|dump|printout|transcript)`;

/**
 * A lead of at most a few words that names output, then a colon: "<tool> output:", "test results
 * from CI:", "the nightly run:", "here's what the linter printed:", "seeing this in Safari:". The
 * words before the colon; the colon ends the match.
 */
const OUTPUT_LEAD = new RegExp(
  String.raw`^\s*(?:` +
    // "[the] [few words] output|results|log|run... [after|from|on ... a few words]:"
    String.raw`(?:[\w.+#/()'-]+\s+){0,4}?${OUTPUT_NOUN}(?:\s+(?:after|from|on|of|in|for|during|when|with|at)\s+(?:[\w.+#/'-]+\s*){1,5})?` +
    // "here's what the linter printed:", "this is what kubectl says:"
    String.raw`|(?:here'?s|here is|this is)\s+what\s+(?:[\w.+#/'-]+\s+){1,4}?(?:printed|prints|says|said|shows|showed|gives|gave|spat out|spits out|logged|logs|returned|returns|outputs|output)` +
    // another's document quoted: "the vendor's release notes:", "Stripe's changelog for May:", "their
    // announcement:" (not "our release notes:": the team's own words are read as said)
    String.raw`|(?!(?:our|my|the team's|team))(?:[\w.+#/()'-]+\s+){0,3}?(?:release notes|changelog|change log|announcement|advisory|newsletter|press release|blog post|docs|documentation|readme|faq|guidelines|email|memo|notice)(?:\s+(?:for|from|of|about|on)\s+(?:[\w.+#/'-]+\s*){1,5})?` +
    // "seeing this in the browser console after deploy:", "getting this when I build:"
    String.raw`|(?:(?:i'?m|we'?re|i am|we are)\s+)?(?:seeing|getting|got|hitting|see|get)\s+(?:this|these|the following)\b[^:\n]{0,60}` +
    String.raw`)\s*:(?=\s|$)`,
  "i",
);

/** An explanation: a lead that holds one states a problem ("Root cause from the logs: ..."), and so does a line after output. */
const EXPLAINS =
  /\b(?:because|since|due to|caused by|root cause|turn(?:s|ed) out|whenever|every time|each time|always|never|the (?:problem|issue|cause|bug|fix|culprit|lesson|takeaway) (?:is|was)|which means|lesson|takeaway)\b/i;
/** The first person (not "I (3421)", a log level), or a question to the reader. */
const FIRST_PERSON_OR_ASKS = /\b(?:we|we're|we've|we'll|our|us|my|let's|i'm|i've|i'd|i'll)\b|\bi\b(?!\s*\()|\b(?:any idea|any ideas|thoughts)\b|\?\s*$/i;

/** The end of an output lead in a line (the index just past its colon), or -1. */
export function outputLeadEnd(line: string): number {
  // (a lead ends in a colon: most lines hold none and are not searched)
  if (!line.includes(":")) return -1;
  const m = OUTPUT_LEAD.exec(line);
  return m && !EXPLAINS.test(m[0]) ? m[0].length : -1;
}

/** Whether a line (or what follows a lead in it) is in a person's own voice. */
export const personVoice = (text: string) => FIRST_PERSON_OR_ASKS.test(text) || EXPLAINS.test(text);
