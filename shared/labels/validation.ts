// Label key and value validation with kube's exact wording
// (k8s.io/apimachinery/pkg/api/validate/content) and the field.Error
// rendering ("<path>: Invalid value: <json>: <detail>") that selector parse
// errors carry, so a client sees the same text a real apiserver sends.
import { goQuote } from '../patch/go-format.ts';

const labelKeyFmt = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const labelKeyErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";

const labelKeyRe = new RegExp(`^${labelKeyFmt}$`);
const labelValueRe = new RegExp(`^${labelValueFmt}$`);
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

/** The maximum length, in bytes, of a label value and of a label key's name part. */
export const LABEL_VALUE_MAX_LENGTH = 63;

const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** kube's RegexError: the message, examples and the regex (the double spaces are kube's). */
export function regexError(msg: string, re: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${re}')`;
  const shown = examples.map((e) => `'${e}', `).join(' or ');
  return `${msg} (e.g. ${shown}regex used for validation is '${re}')`;
}

/** kube's MaxLenError. */
export function maxLenError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/** Problems with a DNS-1123 subdomain (lower case), as content.IsDNS1123Subdomain words them. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!dns1123SubdomainRe.test(value)) errs.push(regexError(dns1123SubdomainErrMsg, dns1123SubdomainFmt, 'example.com'));
  return errs;
}

/** Problems with a label key (a qualified name: optional DNS prefix, '/', name); empty when valid. */
export function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...isDNS1123Subdomain(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (byteLength(name) > LABEL_VALUE_MAX_LENGTH) errs.push(`name part ${maxLenError(LABEL_VALUE_MAX_LENGTH)}`);
  if (!labelKeyRe.test(name)) {
    errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** Problems with a label value (empty is valid); empty when valid. */
export function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > LABEL_VALUE_MAX_LENGTH) errs.push(maxLenError(LABEL_VALUE_MAX_LENGTH));
  if (!labelValueRe.test(value)) errs.push(regexError(labelValueErrMsg, labelValueFmt, 'MyValue', 'my_value', '12345'));
  return errs;
}

/**
 * A field.Error of type Invalid rendered as kube renders it. `path` is the
 * field path; kube prints a nil path as "<nil>", which is what label selector
 * parse errors show.
 */
export function invalidValue(path: string | null, value: unknown, detail: string): string {
  const shown = typeof value === 'string' ? goQuote(value) : JSON.stringify(value ?? null);
  return `${path ?? '<nil>'}: Invalid value: ${shown}${detail ? `: ${detail}` : ''}`;
}

/** kube's errors.Aggregate message: one error alone, several as "[a, b]" with duplicates dropped. */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
