// Static bearer tokens from --token-auth-file, kube's CSV format:
// token,user,uid[,"group1,group2"]. Read once at start, as kube does; a
// malformed file stops the apiserver with an error that names the line.
import { readFileSync } from 'node:fs';
import type { Authenticated, TokenAuthenticator } from '../authenticator-types.ts';
import type { UserInfo } from '../user-info.ts';

/** One record of a CSV file and the line it starts on. */
interface CsvRecord {
  line: number;
  fields: string[];
}

/** RFC 4180 records as Go's encoding/csv reads them (variable field counts, blank lines skipped). */
export function parseCsv(text: string, path: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let line = 1;
  let i = 0;
  const fail = (col: number, why: string): never => {
    throw new Error(`token file '${path}': parse error on line ${line}, column ${col}: ${why}`);
  };
  while (i < text.length) {
    const start = line;
    // A blank line is no record.
    if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n')) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
      continue;
    }
    const fields: string[] = [];
    let col = 1;
    for (;;) {
      let field = '';
      if (text[i] === '"') {
        i++;
        col++;
        for (;;) {
          if (i >= text.length) fail(col, 'extraneous or missing " in quoted-field');
          const ch = text[i];
          if (ch === '"') {
            if (text[i + 1] === '"') {
              field += '"';
              i += 2;
              col += 2;
              continue;
            }
            i++;
            col++;
            break;
          }
          if (ch === '\n') {
            line++;
            col = 0;
          }
          field += ch;
          i++;
          col++;
        }
        if (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          fail(col, 'extraneous or missing " in quoted-field');
        }
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
          if (text[i] === '"') fail(col, 'bare " in non-quoted field');
          field += text[i];
          i++;
          col++;
        }
      }
      fields.push(field);
      if (text[i] === ',') {
        i++;
        col++;
        continue;
      }
      break;
    }
    if (text[i] === '\r') i++;
    if (text[i] === '\n') i++;
    records.push({ line: start, fields });
    line++;
  }
  return records;
}

/** The users of a token file's text, by token; `warn` hears of empty and duplicate tokens. */
export function parseTokenFile(text: string, path: string, warn: (msg: string) => void = () => {}): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  let recordNum = 0;
  for (const { line, fields } of parseCsv(text, path)) {
    if (fields.length < 3) {
      throw new Error(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${fields.length} on line ${line}`,
      );
    }
    recordNum++;
    const [token, username, uid] = fields;
    if (!token) {
      warn(`empty token has been found in token file '${path}', record number '${recordNum}'`);
      continue;
    }
    if (tokens.has(token)) warn(`duplicate token has been found in token file '${path}', record number '${recordNum}'`);
    const user: UserInfo = { username, uid, groups: fields.length >= 4 ? fields[3].split(',') : [] };
    tokens.set(token, user);
  }
  return tokens;
}

/** The authenticator of a token file's tokens (audience-agnostic: wrap it with audienceAgnostic). */
export function tokenFileAuthenticator(path: string, warn?: (msg: string) => void): TokenAuthenticator {
  const tokens = parseTokenFile(readFileSync(path, 'utf8'), path, warn);
  return {
    name: 'token-file',
    authenticateToken(token: string): Promise<Authenticated | undefined> {
      const user = tokens.get(token);
      return Promise.resolve(user ? { user: structuredClone(user), authenticator: 'token-file' } : undefined);
    },
  };
}
