// Someone else's view, not (yet) the team's (branch capture32): "Kai reckons we should move the sim
// to Isaac", "Our tech lead prefers early returns, but the old codebase is full of nested ifs", "The
// consultants keep pushing Snowflake over BigQuery". The sentence names its holder, a person or a
// role that is not the speaker or the team, as the subject of a verb of opinion (thinks, reckons,
// prefers, suggests, keeps pushing ...). What the team does with it is another sentence; said in the
// same one ("..., so we agreed", "Jonas made the call", "decided", "from now on") the choice is
// ours and stays. A requirement ("the client wants every invoice as PDF/A", "security requires")
// binds the team and is not read here: only verbs of a view.

import { vocabularyEntry } from "./entities.ts";
import { OUR_CHOICE } from "./outsider-act.ts";

/** A role or group that holds a view: "our tech lead", "the consultants", "a few people in the guild". */
const ROLE =
  /^(?:(?:our|the|my|a|one of the|some|a few|several)\s+)?(?:[\w-]+\s+){0,2}?(?:lead|manager|pm|po|cto|ceo|vp|architect|contractors?|consultants?|vendor|auditors?|designers?|colleagues?|boss|team|folks|people|devs|developers|engineers|reviewers?|intern|interns)(?:\s+(?:in|on|from|at)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?\s+/i;
/** A person named: one capitalised word that is not a thing of the vocabulary ("Kai", "Priya", not "Postgres"). */
const NAMED = /^(?!(?:I|We|You|They|He|She|It|This|That|These|Those|There|Here|Everyone|Everybody|Nobody|Someone|Somebody|Anyone|Most|Many|Some|All|Each|Every|Our|My|Your|Their|His|Her|Its|Who|What|Which|Why|How|When|Where|Please|Also|Honestly|Personally|Generally|Usually|Still|Really)\b)(\p{Lu}\p{Ll}+)\s+/u;

/** A verb of holding a view (not of requiring, deciding or doing). */
const VIEW =
  /^(?:(?:still|really|strongly|kind of|also)\s+)?(?:thinks?|reckons?|believes?|feels?|prefers?|likes?|loves?|hates?|suggest(?:s|ed)?|recommends?|recommended|argues?|argued|proposes?|proposed|floated|favou?rs?|would rather|'d rather|keeps? pushing(?: for)?|(?:is|are) (?:pushing for|keen on|a (?:big |huge )?fan of|(?:big |huge )?fans of|sold on|convinced)|swears? by)\b/i;

/** The choice made, in the same sentence: decided, agreed, the call made, a rule. */
const SETTLED = /\b(?:decided|agreed|accepted|approved|made the call|signed off|settled|went with|rule|policy|from now on|going forward)\b/i;

/** Why a sentence hands on another's view rather than the team's choice, or null. */
export function anothersView(s: string): string | null {
  let rest: string;
  const role = ROLE.exec(s);
  if (role) rest = s.slice(role[0].length);
  else {
    const named = NAMED.exec(s);
    if (!named) return null;
    rest = s.slice(named[0].length);
    // (the vocabulary is asked last: most sentences have no verb of a view after their first word)
    if (!VIEW.test(rest) || vocabularyEntry(named[1]!)) return null;
  }
  if (!VIEW.test(rest) || SETTLED.test(s) || OUR_CHOICE.test(s.replace(/\bwe should\b/gi, ""))) return null;
  return "someone else's view, not the team's choice";
}
