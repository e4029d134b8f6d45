// Table tests for the label selector parser: accepted syntax, the printed
// form, and kube's exact error messages for bad input.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { labelSelectorString, matchesLabels } from './selector.ts';
import { parseLabelSelector } from './parse-label-selector.ts';

const keyRegexHelp =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexHelp =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

describe('parseLabelSelector: accepted input and its printed form', () => {
  const cases: [input: string, printed: string][] = [
    ['', ''],
    ['   ', ''],
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['z=c,x=a', 'x=a,z=c'],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x==a', 'x==a'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['  x  =  a  ,  y  ', 'x=a,y'],
    ['\tx\n=\ra', 'x=a'],
    ['!x', '!x'],
    ['x', 'x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    ['x in (b,a,b)', 'x in (a,b)'],
    ['x notin (a)', 'x notin (a)'],
    ['x in ()', 'x in ()'],
    ['x in (,a)', 'x in (,a)'],
    ['x in (a,)', 'x in (,a)'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['in in (in,notin)', 'in in (in,notin)'],
    ['example.com/app=web,app.kubernetes.io/name=x', 'app.kubernetes.io/name=x,example.com/app=web'],
    ['tier in (a, b),app=web', 'app=web,tier in (a,b)'],
  ];
  for (const [input, printed] of cases) {
    it(JSON.stringify(input), () => {
      assert.equal(labelSelectorString(parseLabelSelector(input)), printed);
    });
  }
});

describe('parseLabelSelector: errors', () => {
  const cases: [input: string, message: string][] = [
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRegexHelp}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x,', "found '', expected: identifier after ','"],
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ['x !', "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt"],
    ['x exists', "unable to parse requirement: found 'exists', expected: in, notin, =, ==, !=, gt, lt"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x notin', "unable to parse requirement: found '' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x===a', "unable to parse requirement: found '=', expected: identifier"],
    ['x<a', "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"],
    ['a@b=c', `unable to parse requirement: <nil>: Invalid value: "a@b": name part ${keyRegexHelp}`],
    ['/app=x', 'unable to parse requirement: <nil>: Invalid value: "/app": prefix part must be non-empty'],
    ['app/=x', `unable to parse requirement: <nil>: Invalid value: "app/": name part must be non-empty; name part ${keyRegexHelp}`],
    [
      'Example.com/app=x',
      "unable to parse requirement: <nil>: Invalid value: \"Example.com/app\": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character " +
        "(e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    [
      'a/b/c',
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key ${keyRegexHelp} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    [
      `${'k'.repeat(64)}=x`,
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 bytes`,
    ],
    ['app=-web', `unable to parse requirement: values[0][app]: Invalid value: "-web": ${valueRegexHelp}`],
    [
      `app=${'v'.repeat(64)}`,
      `unable to parse requirement: values[0][app]: Invalid value: "${'v'.repeat(64)}": must be no more than 63 bytes`,
    ],
    [
      'app in (ok,-b,c-)',
      `unable to parse requirement: [values[0][app]: Invalid value: "-b": ${valueRegexHelp}, values[1][app]: Invalid value: "c-": ${valueRegexHelp}]`,
    ],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.throws(
        () => parseLabelSelector(input),
        (err: unknown) => {
          assert.ok(err instanceof Error);
          assert.equal(err.message, message);
          return true;
        },
      );
    });
  }
});

describe('parseLabelSelector + matchesLabels', () => {
  const cases: [selector: string, labels: Record<string, string> | undefined, match: boolean][] = [
    ['', undefined, true],
    ['', { a: 'b' }, true],
    ['x=a', { x: 'a' }, true],
    ['x=a', { x: 'b' }, false],
    ['x=a', {}, false],
    ['x=a', undefined, false],
    ['x==a', { x: 'a' }, true],
    ['x!=a', { x: 'b' }, true],
    ['x!=a', { x: 'a' }, false],
    ['x!=a', {}, true],
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x', { x: '' }, true],
    ['x', { y: 'x' }, false],
    ['!x', { y: 'x' }, true],
    ['!x', { x: '' }, false],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x notin (a,b)', {}, true],
    ['x in ()', { x: '' }, true],
    ['x>1', { x: '2' }, true],
    ['x>1', { x: '1' }, false],
    ['x>1', { x: 'abc' }, false],
    ['x>1', {}, false],
    ['x<5', { x: '-3' }, true],
    ['x=a,y=b', { x: 'a', y: 'b', z: 'c' }, true],
    ['x=a,y=b', { x: 'a' }, false],
    ['app=web,tier in (fe,be),!canary', { app: 'web', tier: 'be' }, true],
    ['app=web,tier in (fe,be),!canary', { app: 'web', tier: 'be', canary: 'true' }, false],
    ['toString', {}, false],
  ];
  for (const [selector, labels, match] of cases) {
    it(`${JSON.stringify(selector)} on ${JSON.stringify(labels)} -> ${match}`, () => {
      assert.equal(matchesLabels(parseLabelSelector(selector), labels), match);
    });
  }
});
