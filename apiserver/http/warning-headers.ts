// The Warning headers of a response, as kube's warning recorder writes them:
// each text once, in order; past 4096 runes in all, every text cut to 256
// runes; a text NewWarningHeader refuses is left out. Values go on the wire
// as UTF-8 bytes, as Go writes them: Node refuses header strings with
// characters above U+00FF, so the bytes are handed over as a latin1 string.
import { warningHeaderValue } from '../validation/index.ts';

/** kube's truncateAtTotalRunes and truncateItemRunes. */
const TOTAL_RUNES = 4 * 1024;
const ITEM_RUNES = 256;

const runes = (s: string): string[] => Array.from(s);

/** The Warning header values for `texts`, ready for writeHead. */
export function warningHeaders(texts: readonly string[]): string[] {
  const unique = [...new Set(texts.filter((t) => t.length > 0))];
  let total = 0;
  for (const t of unique) if (warningHeaderValue(t) !== undefined) total += runes(t).length;
  const truncate = total > TOTAL_RUNES;
  const out: string[] = [];
  for (const text of unique) {
    const r = runes(text);
    const value = warningHeaderValue(truncate && r.length > ITEM_RUNES ? r.slice(0, ITEM_RUNES).join('') : text);
    if (value !== undefined) out.push(Buffer.from(value, 'utf8').toString('latin1'));
  }
  return out;
}
