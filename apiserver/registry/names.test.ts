import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateNameFrom, nameProblems, validateObjectName } from './names.ts';

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

describe('nameProblems', () => {
  it('path segments: kube refuses . and .. and names with / or %', () => {
    assert.deepEqual(nameProblems('..', 'path-segment'), ["may not be '..'"]);
    assert.deepEqual(nameProblems('.', 'path-segment'), ["may not be '.'"]);
    assert.deepEqual(nameProblems('a/%', 'path-segment'), ["may not contain '/'", "may not contain '%'"]);
    assert.deepEqual(nameProblems('..\\x', 'path-segment'), []);
  });
  it('prefix mode masks a trailing dash as kube does (dropping the character before it too)', () => {
    assert.deepEqual(nameProblems('test-', 'label', true), []);
    assert.deepEqual(nameProblems('a-', 'label', true), []);
    assert.deepEqual(nameProblems('--', 'label', true), [], "'--' masks to 'a'");
    assert.deepEqual(nameProblems('-', 'label', true), [LABEL_MSG]);
    assert.deepEqual(nameProblems('---', 'label', true), [LABEL_MSG]);
    assert.deepEqual(nameProblems('A-', 'label', true), [], "kube's mask drops the 'A' too; the generated name is checked on its own");
    assert.deepEqual(nameProblems('..', 'path-segment', true), [], 'a prefix may be ..');
  });
});

describe('validateObjectName', () => {
  it('checks generateName as a prefix and the generated name', () => {
    const errs = validateObjectName({ generateName: '-', name: '-abcde' }, 'label').map((e) => e.message);
    assert.deepEqual(errs, [
      `metadata.generateName: Invalid value: "-": ${LABEL_MSG}`,
      `metadata.name: Invalid value: "-abcde": ${LABEL_MSG}`,
    ]);
  });
  it('a missing name is required', () => {
    assert.deepEqual(
      validateObjectName({}, 'subdomain').map((e) => e.message),
      ['metadata.name: Required value: name or generateName is required'],
    );
  });
});

describe('generateNameFrom', () => {
  it('cuts the prefix to 58 characters and adds 5 from kube’s alphabet', () => {
    assert.match(generateNameFrom('test-'), /^test-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    const long = generateNameFrom('a'.repeat(300));
    assert.equal(long.length, 63);
    assert.ok(long.startsWith('a'.repeat(58)));
  });
});
