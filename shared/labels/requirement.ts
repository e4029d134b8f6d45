// One label selector requirement (key, operator, values): its validation as
// labels.NewRequirement does it, how it matches a label set, and how it prints.
import { aggregate, invalidValue, isLabelKey, isLabelValue } from './validation.ts';

/** The operators of k8s.io/apimachinery/pkg/selection, spelled as kube spells them. */
export type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

/** A single requirement; values are kept in the order given (parsed selectors sort and de-duplicate them). */
export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

/** The binary operators in the order kube lists them in "expected: ..." errors. */
export const BINARY_OPERATORS: readonly Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const ALL_OPERATORS: readonly Operator[] = [...BINARY_OPERATORS, 'exists', '!'];

/** field.Path rendering of "values" (a nil root path prints without prefix). */
const valuePath = (prefix: string | null, i?: number): string => {
  const base = prefix ? `${prefix}.values` : 'values';
  return i === undefined ? base : `${base}[${i}]`;
};

/** Go's strconv.ParseInt(s, 10, 64) success test. */
export function isInt64(s: string): boolean {
  if (!/^[+-]?\d+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n <= 2n ** 63n - 1n;
}

/**
 * Builds a requirement the way labels.NewRequirement does, throwing an Error
 * whose message is kube's aggregated field errors. `path` is the optional
 * field path prefix (kube passes none for query-string selectors).
 * `values` of undefined renders as null in errors, as a nil Go slice does.
 */
export function newRequirement(
  key: string,
  operator: string,
  values: readonly string[] | undefined,
  path: string | null = null,
): Requirement {
  const errs: string[] = [];
  const vals = values ?? [];
  const keyErrs = isLabelKey(key);
  if (keyErrs.length) errs.push(invalidValue(path ? `${path}.key` : 'key', key, keyErrs.join('; ')));
  const shownValues = values === undefined ? null : vals;
  switch (operator) {
    case 'in':
    case 'notin':
      if (vals.length === 0)
        errs.push(invalidValue(valuePath(path), shownValues, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (vals.length !== 1) errs.push(invalidValue(valuePath(path), shownValues, 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (vals.length !== 0)
        errs.push(invalidValue(valuePath(path), shownValues, 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (vals.length !== 1)
        errs.push(invalidValue(valuePath(path), shownValues, "for 'Gt', 'Lt' operators, exactly one value is required"));
      vals.forEach((v, i) => {
        if (!isInt64(v)) errs.push(invalidValue(valuePath(path, i), v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default: {
      const supported = ALL_OPERATORS.map((o) => JSON.stringify(o)).join(', ');
      errs.push(
        `${path ? `${path}.operator` : 'operator'}: Unsupported value: ${JSON.stringify(operator)}: supported values: ${supported}`,
      );
    }
  }
  vals.forEach((v, i) => {
    const valErrs = isLabelValue(v);
    if (valErrs.length) errs.push(invalidValue(`${valuePath(path, i)}[${key}]`, v, valErrs.join('; ')));
  });
  if (errs.length) throw new Error(aggregate(errs));
  return { key, operator: operator as Operator, values: [...vals] };
}

/** Whether one requirement holds for a label set (a missing key satisfies only notin, != and !). */
export function requirementMatches(r: Requirement, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value!);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !isInt64(value!) || r.values.length !== 1 || !isInt64(r.values[0])) return false;
      const have = BigInt(value!);
      const want = BigInt(r.values[0]);
      return r.operator === 'gt' ? have > want : have < want;
    }
    default:
      return false;
  }
}

const OPERATOR_TEXT: Record<Operator, string> = {
  '=': '=',
  '==': '==',
  '!=': '!=',
  in: ' in ',
  notin: ' notin ',
  gt: '>',
  lt: '<',
  exists: '',
  '!': '',
};

/** The requirement as Requirement.String() prints it; several values are shown sorted. */
export function formatRequirement(r: Requirement): string {
  const head = `${r.operator === '!' ? '!' : ''}${r.key}`;
  if (r.operator === 'exists' || r.operator === '!') return head;
  const values = r.values.length === 1 ? r.values[0] : [...r.values].sort(compareBytes).join(',');
  const body = r.operator === 'in' || r.operator === 'notin' ? `(${values})` : values;
  return `${head}${OPERATOR_TEXT[r.operator]}${body}`;
}

/** Go's byte-wise string order (for the ASCII that keys and values allow, plain code unit order). */
export function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
