import type { CheckedItem } from '../glossary/import-terms.ts';
import type { NameConflictError } from '../glossary/other-names.ts';
import { type Term, termOf } from '../glossary/term.ts';
import { nameConflictFault } from './errors.ts';
import { TermInput } from './schemas/term.ts';
import { checkItem, compileBodySchema } from './validation.ts';
import type { ValidationFault } from './wire.ts';

const validateTermInput = compileBodySchema(TermInput);

export type CheckedTerm = { ok: true; term: Term } | { ok: false; faults: ValidationFault[] };

/** Validates one bulk item exactly as POST /terms validates its body. */
export function checkTerm(item: unknown): CheckedTerm {
  const faults = checkItem(validateTermInput, item);
  return faults.length > 0 ? { ok: false, faults } : { ok: true, term: termOf(item as TermInput) };
}

/** A bulk item judged for the import use case: its faults become the item's `detail`. */
export function checkBulkItem(item: unknown): CheckedItem {
  const checked = checkTerm(item);
  return checked.ok ? checked : { ok: false, detail: describeFaults(checked.faults) };
}

/**
 * A bulk item's faults as one sentence: `category: value is not a valid enumeration member; ...`,
 * with the field path (dots between levels) before each message, and no path for the item itself.
 */
export function describeFaults(faults: readonly ValidationFault[]): string {
  return faults
    .map((fault) => {
      const where = fault.loc.slice(1).join('.');
      return where ? `${where}: ${fault.msg}` : fault.msg;
    })
    .join('; ');
}

/**
 * A bulk item refused by the rule across the glossary: the fault a single write gets
 * (`avoid.0: 'web hook' is the name of term 42.`), in the words of a bulk item's faults.
 */
export function describeConflict(conflict: NameConflictError): string {
  return describeFaults([nameConflictFault(conflict)]);
}
