/**
 * Free text (labels, names, descriptions, justifications): printable characters only.
 * A control character (a NUL, an escape sequence, a bell) in a label reaches every
 * listing, log and terminal that shows it; the service refuses it (422
 * `string_control_character`) and the provider's preview refuses the same values.
 * Multi-line text (descriptions, justifications) may hold line breaks and tabs.
 */
import type { RuleViolation } from "./types";

// C0 controls, DEL, C1 controls; line breaks and tabs are judged separately.
const CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/;
const LINE_BREAK_OR_TAB = /[\t\n\r]/;

/** A violation when `value` (a string) holds a control character; nothing for other types or unset values. */
export function controlCharacterViolation(value: unknown, path: (string | number)[], { multiLine }: { multiLine: boolean }): RuleViolation | undefined {
  if (typeof value !== "string") return undefined;
  const found = CONTROL.exec(value) ?? (multiLine ? null : LINE_BREAK_OR_TAB.exec(value));
  if (!found) return undefined;
  const code = `U+${found[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
  const allowed = multiLine ? "printable characters, line breaks and tabs" : "printable characters on one line";
  return {
    path,
    type: "string_control_character",
    msg: `String holds the control character ${code} at position ${found.index}; only ${allowed} are allowed`,
    params: { character: code, position: found.index },
  };
}

/** The control-character violations of several text fields of one body. */
export function textViolations(body: Record<string, unknown>, fields: { singleLine?: readonly string[]; multiLine?: readonly string[] }): RuleViolation[] {
  const out: RuleViolation[] = [];
  for (const name of fields.singleLine ?? []) {
    const v = controlCharacterViolation(body[name], [name], { multiLine: false });
    if (v) out.push(v);
  }
  for (const name of fields.multiLine ?? []) {
    const v = controlCharacterViolation(body[name], [name], { multiLine: true });
    if (v) out.push(v);
  }
  return out;
}
