// Field selectors (?fieldSelector=spec.nodeName=node-1) parsed as
// k8s.io/apimachinery/pkg/fields parses them: comma-separated terms of
// field=value, field==value or field!=value, with \ escaping of \ , and = in
// values. No whitespace is trimmed: kube keeps it as part of field and value.
import { compareBytes } from './requirement.ts';

/** One field requirement; "==" is stored as "=", as kube does. */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '!=';
  readonly value: string;
}

/** A parsed field selector: an AND of requirements, sorted as kube sorts the terms. */
export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
}

/** Escapes a literal value for use in a field selector (fields.EscapeValue). */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Unescapes a field selector value, throwing kube's error for a bad escape or a bare ',' or '='. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const c of value) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new Error(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      // kube prints the rune with %v, i.e. as its number.
      throw new Error(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else out += c;
  }
  if (inSlash) throw new Error('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Splits on commas that are not escaped; the escapes stay in the terms. */
function splitTerms(text: string): string[] {
  if (text.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** The first operator from the left splits the term; the field part is never unescaped. */
function splitTerm(term: string): { lhs: string; op: (typeof TERM_OPERATORS)[number]; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses a field selector. "" is the empty selector; empty terms are skipped,
 * and a term with neither field nor value ("=") is dropped as kube drops it.
 * Throws an Error with kube's message on a term without an operator or a bad
 * escape.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(compareBytes);
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) throw new Error(`invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    if (term.lhs === '' && value === '') continue;
    requirements.push({ field: term.lhs, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return { requirements };
}

/**
 * Whether an object matches. `get` returns the object's value for a field;
 * undefined counts as "", as kube's fields.Set does for an absent field.
 */
export function matchesFields(sel: FieldSelector, get: (field: string) => string | undefined): boolean {
  return sel.requirements.every((r) => {
    const actual = get(r.field) ?? '';
    return r.operator === '=' ? actual === r.value : actual !== r.value;
  });
}

/** The distinct fields the selector names, in selector order, so a caller can reject unsupported ones. */
export function fieldSelectorFields(sel: FieldSelector): string[] {
  return [...new Set(sel.requirements.map((r) => r.field))];
}

/** The value an "=" requirement demands for `field` (RequiresExactMatch), or undefined. */
export function exactMatch(sel: FieldSelector, field: string): string | undefined {
  return sel.requirements.find((r) => r.field === field && r.operator === '=')?.value;
}

/** True when the selector restricts nothing. */
export function isEmptyFieldSelector(sel: FieldSelector): boolean {
  return sel.requirements.length === 0;
}

/** The selector as kube prints it: "a=b,c!=d" with values escaped. */
export function fieldSelectorString(sel: FieldSelector): string {
  return sel.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
}
