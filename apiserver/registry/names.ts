// Name validation with kube's rules and wording (apimachinery's
// validation.IsDNS1123Subdomain, IsDNS1123Label, IsDNS1035Label, path segments).
import { fieldError, type FieldError } from '../../shared/api/errors.ts';

/** Which rule a kind's metadata.name follows. */
export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'path-segment';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/**
 * kube's maskTrailingDash for a generateName prefix: a trailing '-' is
 * allowed since a suffix follows it. (Like kube, it drops the character
 * before the dash as well: the checks only need a valid last character.)
 */
function maskTrailingDash(prefix: string): string {
  return prefix.length > 1 && prefix.endsWith('-') ? prefix.slice(0, -2) + 'a' : prefix;
}

/**
 * Problems with `name` under `rule`, as kube words them (empty when valid).
 * `prefix` checks a generateName as kube's name functions do in prefix mode.
 */
export function nameProblems(name: string, rule: NameRule, prefix = false): string[] {
  const problems: string[] = [];
  const value = prefix && rule !== 'path-segment' ? maskTrailingDash(name) : name;
  switch (rule) {
    case 'subdomain':
      if (value.length > 253) problems.push('must be no more than 253 characters');
      if (!SUBDOMAIN.test(value)) problems.push(SUBDOMAIN_MSG);
      break;
    case 'label':
      if (value.length > 63) problems.push('must be no more than 63 characters');
      if (!LABEL.test(value)) problems.push(LABEL_MSG);
      break;
    case 'dns1035':
      if (value.length > 63) problems.push('must be no more than 63 characters');
      if (!DNS1035.test(value)) problems.push(DNS1035_MSG);
      break;
    case 'path-segment':
      // A prefix may be '.' or '..': the suffix makes it another name.
      if (!prefix && (name === '.' || name === '..')) problems.push(`may not be '${name}'`);
      for (const bad of ['/', '%']) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
      break;
  }
  return problems;
}

/** kube's SimpleNameGenerator keeps this much of a generateName, so the name fits 63 characters with its suffix. */
export const MAX_GENERATED_PREFIX = 58;

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A name from generateName as kube makes one: the prefix cut to 58 characters, and 5 random characters from kube's alphabet. */
export function generateNameFrom(generateName: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[Math.floor(Math.random() * SUFFIX_ALPHABET.length)];
  let end = Math.min(generateName.length, MAX_GENERATED_PREFIX);
  // Never cut a surrogate pair in two (kube cuts bytes; a name it could cut badly never validates).
  if (end < generateName.length && /[\ud800-\udbff]/.test(generateName[end - 1])) end--;
  return generateName.slice(0, end) + suffix;
}

/**
 * Field errors for an object's metadata.generateName and metadata.name, as
 * kube's ValidateObjectMeta reports them: the generateName (whenever set) as
 * a prefix, then the name, which on a create has already been generated.
 */
export function validateObjectName(meta: { name?: string; generateName?: string }, rule: NameRule): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof meta.generateName === 'string' && meta.generateName !== '') {
    for (const p of nameProblems(meta.generateName, rule, true))
      errs.push(fieldError.invalid('metadata.generateName', meta.generateName, p));
  }
  if (!meta.name) errs.push(fieldError.required('metadata.name', 'name or generateName is required'));
  else for (const p of nameProblems(meta.name, rule)) errs.push(fieldError.invalid('metadata.name', meta.name, p));
  return errs;
}
