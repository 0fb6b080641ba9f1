// Who decides, and whose trouble it is. A decision's or a problem's words whose subject is someone
// outside the team, reported by the speaker, hand on news, not the team's standing knowledge: "The
// tide-gauge vendor decided to drop the old loggers", "A friend's Home Assistant box died because
// the SD card wore out", "Someone on the Bun Discord had their lockfile corrupted". Read on who the
// sentence's subject is (a vendor, a client, a council, a friend, someone on a forum), not on its
// subject matter; the team drawing its own choice from it ("..., so we now mirror the loggers")
// keeps it ours.

/** A lead that hands on what was seen or heard before the subject: "Saw a blog post where", "Heard that". */
const HEARD_LEAD = /^(?:(?:so|btw|fyi|also|and|fun fact|apparently)[,:]?\s+)?(?:before (?:i|we) (?:joined|came|arrived|started)[,:]?\s+|(?:i\s+)?(?:saw|read|heard)\s+(?:(?:a|an|some|this)\s+(?:[\w-]+\s+)?(?:post|thread|article|story|tweet|talk)\s+(?:where|about how|that)|(?:that|about how|from [\w\s-]{1,30} that))\s+)?/i;

/**
 * A person outside the team, as the subject or the owner of the trouble: "a friend's box", "my
 * neighbour's inverter app", "someone on the Bun Discord", "a colleague at the Braga branch says".
 * Not users or customers: their trouble with our product is ours ("customers on iOS 17 see a blank
 * screen").
 */
const OUTSIDE_PERSON =
  /^(?:(?:a|my|one|some|this)\s+)?(?:friend|neighbou?r|brother|sister|cousin|uncle|dad|mum|mom|wife|husband|someone|somebody|(?:ex-?)?colleague at (?:the |a |an )?[\w-]+(?:\s+[\w-]+){0,2})(?:'s\s|\s+(?:of mine\s+)?(?:on|in|at|from) (?:the |a |an |my )?[\w-]+(?:\s+[\w-]+)?\s+(?:had|has|got|lost|says|said|told|decided|chose|picked|switched|moved|uses|used)\b|\s+(?:of mine\s+)?(?:had|has|got|lost|says|said|told|decided|chose|picked|switched|moved)\b)/i;

/**
 * An organisation outside the team making a choice: "the tide-gauge vendor decided to drop ...",
 * "the museum's parent council picked a new ticketing vendor", "the ferry company picked a new booking
 * engine", "the university's central IT moved every department onto Teams", "our landlord changed the
 * wifi" (a landlord or an ISP is "ours" without being the team). Only as the subject of a verb of
 * choosing ("the vendor API drops connections" is our trouble with it), and not "our": a team's own
 * word for its authority ("our board decided all code is reviewed") hands on a rule that binds it.
 */
const OUTSIDE_BODY_CHOOSES =
  /^(?:(?:the|a|an)\s+(?:[\w'-]+\s+){0,4}?(?:vendor|supplier|council|regulator|landlord|[\w-]+ company|(?:parent |national |regional )?(?:association|federation|league)|[\w-]+'s (?:central )?it|central it|box office|head office|(?:previous|former|old) (?:cto|ceo|team|lead|owner|maintainer|agency|contractor|developer))|our\s+(?:landlord|isp|building management|letting agent))\s+(?:has\s+|have\s+|just\s+)?(?:decided|chose|picked|switched|moved|changed|replaced|went with|opted|dropped|announced|is (?:dropping|switching|moving))\b/i;

/** The team's own choice drawn from it, said in the same sentence: "so we now ...", "we'll ...", "from now on". */
export const OUR_CHOICE =
  /\b(?:so|and|now|which is why)\s+(?:we\b|i(?:'ll| now| always| never| decided| switched| moved| use| keep| started)\b)|\bwe(?:'ll|'ve| will| now| decided| chose| picked| switched| moved| use| always| never| should| must| agreed)\b|\blet's\b|\bfrom now on\b|\bgoing forward\b/i;

/** Why a sentence hands on an outsider's act or trouble, or null. */
export function outsiderAct(s: string): string | null {
  const lead = HEARD_LEAD.exec(s)?.[0].length ?? 0;
  const rest = s.slice(lead);
  if (!(OUTSIDE_PERSON.test(rest) || OUTSIDE_BODY_CHOOSES.test(rest)) || OUR_CHOICE.test(s)) return null;
  return "someone outside the team's act or trouble, reported";
}
