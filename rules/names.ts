/**
 * "Did you mean": the closest known name to a misspelled one, for messages of the
 * provider's check and the emulator's refusals alike (an unknown argument, an unknown
 * quota name). Case is ignored; a name too far from every known one gets no guess.
 */
import { distance } from "fastest-levenshtein";

/** The known name nearest to `name`, if it is within a third of its length (at least 2 edits). */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const d = distance(wanted, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** `; did you mean X?` or, when nothing is close, the list of known names. */
export function didYouMean(name: string, known: readonly string[]): string {
  const guess = closestName(name, known);
  return guess ? `; did you mean ${guess}?` : known.length ? ` (known: ${known.join(", ")})` : "";
}

/** A kind's noun in the messages; the plural ones ("quota limits", "workspace settings") take no article and a plural verb. */
export const isPluralNoun = (noun: string): boolean => noun.endsWith("s");

/** "an endpoint", "a source", "quota limits": a kind's noun with its indefinite article. */
export const withArticle = (noun: string): string => (isPluralNoun(noun) ? noun : `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`);

/** The text with its first letter upper-cased, to begin a sentence ("An endpoint takes ..."). */
export const sentenceCase = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
