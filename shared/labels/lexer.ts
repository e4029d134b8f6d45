// The label selector tokenizer, following labels.Lexer: whitespace separates
// tokens, the special symbols = ! ( ) , > < form operators greedily, and
// anything else is an identifier unless it spells "in" or "notin".

/** Token kinds of the label selector grammar. */
export type TokenKind =
  | 'error'
  | 'end'
  | 'closePar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'greaterThan'
  | 'identifier'
  | 'in'
  | 'lessThan'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

/** One scanned token and its literal text. */
export interface Token {
  kind: TokenKind;
  literal: string;
}

const LITERAL_TOKENS: Record<string, TokenKind> = {
  ')': 'closePar',
  ',': 'comma',
  '!': 'doesNotExist',
  '==': 'doubleEquals',
  '=': 'equals',
  '>': 'greaterThan',
  in: 'in',
  '<': 'lessThan',
  '!=': 'notEquals',
  notin: 'notIn',
  '(': 'openPar',
};

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

const lookupLiteral = (s: string): TokenKind | undefined =>
  Object.prototype.hasOwnProperty.call(LITERAL_TOKENS, s) ? LITERAL_TOKENS[s] : undefined;

/** Splits a selector into tokens, ending with one 'end' token. */
export function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isWhitespace(input[pos])) pos++;
    if (pos >= input.length) {
      tokens.push({ kind: 'end', literal: '' });
      return tokens;
    }
    if (isSpecial(input[pos])) {
      // Longest run of special symbols that still spells a known operator.
      let buffer = '';
      let last: Token | undefined;
      while (pos < input.length && isSpecial(input[pos])) {
        buffer += input[pos];
        const kind = lookupLiteral(buffer);
        if (kind) {
          last = { kind, literal: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      tokens.push(last ?? { kind: 'error', literal: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let word = '';
    while (pos < input.length && !isSpecial(input[pos]) && !isWhitespace(input[pos])) word += input[pos++];
    tokens.push({ kind: lookupLiteral(word) ?? 'identifier', literal: word });
  }
}
