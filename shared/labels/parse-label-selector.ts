// Parses the label selector text of ?labelSelector= and kubectl -l the way
// labels.Parse does, with kube's error messages word for word.
import { selectorOf } from './selector.ts';
import type { LabelSelector } from './selector.ts';
import { tokenize } from './lexer.ts';
import type { Token, TokenKind } from './lexer.ts';
import { BINARY_OPERATORS, compareBytes, newRequirement } from './requirement.ts';
import type { Operator, Requirement } from './requirement.ts';
import { invalidValue, isLabelKey } from './validation.ts';

type Context = 'keyAndOperator' | 'values';

class Parser {
  private position = 0;
  private readonly tokens: Token[];

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  /** In a values context "in" and "notin" are plain identifiers. */
  private view(t: Token, ctx: Context): Token {
    if (ctx === 'values' && (t.kind === 'in' || t.kind === 'notIn')) return { kind: 'identifier', literal: t.literal };
    return t;
  }

  lookahead(ctx: Context): Token {
    return this.view(this.tokens[this.position], ctx);
  }

  consume(ctx: Context): Token {
    return this.view(this.tokens[this.position++], ctx);
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const t = this.lookahead('values');
      if (t.kind === 'identifier' || t.kind === 'doesNotExist') {
        let r: Requirement;
        try {
          r = this.parseRequirement();
        } catch (err) {
          throw new Error(`unable to parse requirement: ${(err as Error).message}`, { cause: err });
        }
        requirements.push(r);
        const next = this.consume('values');
        if (next.kind === 'end') return requirements;
        if (next.kind === 'comma') {
          const after = this.lookahead('values');
          if (after.kind !== 'identifier' && after.kind !== 'doesNotExist') {
            throw new Error(`found '${after.literal}', expected: identifier after ','`);
          }
          continue;
        }
        throw new Error(`found '${next.literal}', expected: ',' or 'end of string'`);
      }
      if (t.kind === 'end') return requirements;
      throw new Error(`found '${t.literal}', expected: !, identifier, or 'end of string'`);
    }
  }

  private parseRequirement(): Requirement {
    const { key, operator } = this.parseKeyAndInferOperator();
    if (operator === 'exists' || operator === '!') return newRequirement(key, operator, []);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(compareBytes));
  }

  private parseKeyAndInferOperator(): { key: string; operator: Operator | undefined } {
    let operator: Operator | undefined;
    let t = this.consume('values');
    if (t.kind === 'doesNotExist') {
      operator = '!';
      t = this.consume('values');
    }
    if (t.kind !== 'identifier') throw new Error(`found '${t.literal}', expected: identifier`);
    const keyErrs = isLabelKey(t.literal);
    if (keyErrs.length) throw new Error(invalidValue(null, t.literal, keyErrs.join('; ')));
    const next = this.lookahead('values').kind;
    if ((next === 'end' || next === 'comma') && operator !== '!') operator = 'exists';
    return { key: t.literal, operator };
  }

  private parseOperator(): Operator {
    const t = this.consume('keyAndOperator');
    const ops: Partial<Record<TokenKind, Operator>> = {
      in: 'in',
      equals: '=',
      doubleEquals: '==',
      greaterThan: 'gt',
      lessThan: 'lt',
      notIn: 'notin',
      notEquals: '!=',
    };
    const op = ops[t.kind];
    if (!op) throw new Error(`found '${t.literal}', expected: ${BINARY_OPERATORS.join(', ')}`);
    return op;
  }

  private parseValues(): Set<string> {
    const open = this.consume('values');
    if (open.kind !== 'openPar') throw new Error(`found '${open.literal}' expected: '('`);
    const t = this.lookahead('values');
    if (t.kind === 'identifier' || t.kind === 'comma') {
      const values = this.parseIdentifiersList();
      if (this.consume('values').kind !== 'closePar') throw new Error(`found '${t.literal}', expected: ')'`);
      return values;
    }
    if (t.kind === 'closePar') {
      this.consume('values');
      return new Set(['']);
    }
    throw new Error(`found '${t.literal}', expected: ',', ')' or identifier`);
  }

  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const t = this.consume('values');
      if (t.kind === 'identifier') {
        values.add(t.literal);
        const next = this.lookahead('values');
        if (next.kind === 'comma') continue;
        if (next.kind === 'closePar') return values;
        throw new Error(`found '${next.literal}', expected: ',' or ')'`);
      }
      if (t.kind === 'comma') {
        // "(,", ",)" and ",," each stand for an empty value.
        if (values.size === 0) values.add('');
        const next = this.lookahead('values').kind;
        if (next === 'closePar') {
          values.add('');
          return values;
        }
        if (next === 'comma') values.add('');
        continue;
      }
      throw new Error(`found '${t.literal}', expected: ',', or identifier`);
    }
  }

  private parseExactValue(): Set<string> {
    const ahead = this.lookahead('values').kind;
    if (ahead === 'end' || ahead === 'comma') return new Set(['']);
    const t = this.consume('values');
    if (t.kind === 'identifier') return new Set([t.literal]);
    throw new Error(`found '${t.literal}', expected: identifier`);
  }
}

/**
 * Parses a label selector such as "app=web,tier in (a,b),!canary" into a
 * selector; "" (or only whitespace) is the empty selector. Throws an Error
 * with kube's message on bad syntax or an invalid key or value.
 */
export function parseLabelSelector(text: string): LabelSelector {
  return selectorOf(new Parser(tokenize(text)).parse());
}
