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

/** Problems with `name` under `rule`, as kube words them (empty when valid). */
export function nameProblems(name: string, rule: NameRule): string[] {
  const problems: string[] = [];
  switch (rule) {
    case 'subdomain':
      if (name.length > 253) problems.push('must be no more than 253 characters');
      if (!SUBDOMAIN.test(name)) problems.push(SUBDOMAIN_MSG);
      break;
    case 'label':
      if (name.length > 63) problems.push('must be no more than 63 characters');
      if (!LABEL.test(name)) problems.push(LABEL_MSG);
      break;
    case 'dns1035':
      if (name.length > 63) problems.push('must be no more than 63 characters');
      if (!DNS1035.test(name)) problems.push(DNS1035_MSG);
      break;
    case 'path-segment':
      if (name === '.' || name === '..') problems.push(`may not be '${name}'`);
      for (const bad of ['/', '%']) if (name.includes(bad)) problems.push(`may not contain '${bad}'`);
      break;
  }
  return problems;
}

/** Field errors for an object's metadata.name (or generateName) and namespace. */
export function validateObjectName(meta: { name?: string; generateName?: string }, rule: NameRule): FieldError[] {
  if (!meta.name) {
    if (!meta.generateName) return [fieldError.required('metadata.name', 'name or generateName is required')];
    // generateName gets a suffix; validate it as if the suffix were a valid tail.
    const probe = meta.generateName.replace(/[-.]$/, '') + 'x';
    return nameProblems(probe, rule).map((p) => fieldError.invalid('metadata.generateName', meta.generateName, p));
  }
  return nameProblems(meta.name, rule).map((p) => fieldError.invalid('metadata.name', meta.name, p));
}
