// intstr.IntOrString checks shared by rolling updates and disruption budgets
// (apps validation's ValidatePositiveIntOrPercent, IsNotMoreThan100Percent,
// getIntOrPercentValue), with kube's `%#v` rendering of the value.
import { fe, goIntOrString, type FieldError } from './field.ts';

const PERCENT = /^[0-9]+%$/;

/** `IsValidPercent`. */
function percentProblems(s: string): string[] {
  return PERCENT.test(s)
    ? []
    : [
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
      ];
}

/** The percentage of a valid "N%" string, else undefined. */
function percentValue(v: unknown): number | undefined {
  return typeof v === 'string' && PERCENT.test(v) ? Number(v.slice(0, -1)) : undefined;
}

/** `getIntOrPercentValue`: the number, or the percentage, or 0 for anything else. */
export function intOrPercentValue(v: unknown): number {
  const p = percentValue(v);
  if (p !== undefined) return p;
  if (typeof v === 'number') return v;
  // IntOrString.IntValue() of a non-percent string is strconv.Atoi's result (0 on error).
  const n = typeof v === 'string' && /^[+-]?\d+$/.test(v) ? Number(v) : 0;
  return n;
}

/** `ValidatePositiveIntOrPercent`. */
export function positiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') return percentProblems(v).map((m) => fe.invalidShown(path, goIntOrString(v), m));
  if (typeof v === 'number') return v < 0 ? [fe.invalid(path, v, 'must be greater than or equal to 0')] : [];
  return [fe.invalidShown(path, goIntOrString(v), "must be an integer or percentage (e.g '5%')")];
}

/** `IsNotMoreThan100Percent`. */
export function notMoreThan100Percent(v: unknown, path: string): FieldError[] {
  const p = percentValue(v);
  return p !== undefined && p > 100 ? [fe.invalidShown(path, goIntOrString(v), 'must not be greater than 100%')] : [];
}
