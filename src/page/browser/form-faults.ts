import type { ValidationFault } from './api.ts';

/** The service's refusals of a term's fields, in the form's words, beside their fields. */

export type Field = 'id' | 'term' | 'definition' | 'category' | 'see_also' | 'aliases' | 'avoid';
const FIELDS: readonly string[] = [
  'id',
  'term',
  'definition',
  'category',
  'see_also',
  'aliases',
  'avoid',
];
/** A bulk item's `detail` of one fault: `avoid.0: 'web hook' is the name of term 42.` */
const ITEM_FAULT = /^([a-z_]+)(?:\.(\d+))?: (.+)$/s;
export type Problems = Partial<Record<Field, string>>;

/**
 * A fault's words: a name another term holds, or one the term has twice, as the service says
 * it ("'web hook' is a name to avoid for term 42."), with its line; others as a refusal.
 */
function faultWords(field: Field, index: unknown, message: string, type?: string): string {
  if (field === 'id' && type === 'value_error.const') return 'The ID of a term cannot change.';
  const sentence = /[.!?]$/.test(message) ? message : `${message}.`;
  const line = typeof index === 'number' ? `Line ${index + 1}: ` : '';
  // The rule on names speaks for itself: "'K8s' is already an alias of this term."
  if (/^'.*' is /s.test(message)) return `${line}${sentence}`;
  return `${line}The glossary refused this: ${sentence}`;
}

/** The service's faults (a 422), in the same words as `read`'s. */
export function fromFaults(faults: ValidationFault[]): Problems {
  const problems: Problems = {};
  for (const fault of faults) {
    const field = fault.loc[1] as Field | undefined;
    if (!field || !FIELDS.includes(field)) continue;
    problems[field] ??= faultWords(field, fault.loc[2], fault.msg, fault.type);
  }
  return problems;
}

/** A refused bulk item's detail, beside its field when it names one. */
export function fromDetail(detail: string): Problems | null {
  const match = ITEM_FAULT.exec(detail);
  const field = match?.[1];
  if (!match || !field || !FIELDS.includes(field)) return null;
  const index = match[2] === undefined ? undefined : Number(match[2]);
  return { [field]: faultWords(field as Field, index, match[3] ?? '') };
}
