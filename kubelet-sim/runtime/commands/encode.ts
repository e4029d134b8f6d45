// base64 (-d, -w), md5sum, sha1sum, sha256sum, sha512sum: decoding a
// Secret's value in a lab, checking a copied file.
import { createHash } from 'node:crypto';
import { getopts, flag, readInputs, usage, type Command } from './types.ts';

export const base64: Command = async (args, io, host) => {
  const o = getopts(args, 'di', 'w', { long: { decode: 'd', wrap: 'w' } });
  if ('error' in o) return usage(io, 'base64', o.error);
  const { texts, failed } = await readInputs(o.rest.slice(0, 1), io, host, (f, why) => `base64: can't open '${f}': ${why}`);
  if (failed) return 1;
  const text = texts[0]?.text ?? '';
  if (o.flags.has('d')) {
    const clean = text.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
      io.out(Buffer.from(clean.replace(/[^A-Za-z0-9+/=].*$/, ''), 'base64').toString('utf8'));
      io.err('base64: invalid input\n');
      return 1;
    }
    io.out(Buffer.from(clean, 'base64').toString('utf8'));
    return 0;
  }
  const enc = Buffer.from(text, 'utf8').toString('base64');
  const wrap = Number(flag(o.flags, 'w') ?? 76);
  io.out((wrap > 0 ? (enc.match(new RegExp(`.{1,${wrap}}`, 'g')) ?? ['']).join('\n') : enc) + '\n');
  return 0;
};

function digest(algo: string, name: string): Command {
  return async (args, io, host) => {
    const files = args.filter((a) => !a.startsWith('-') || a === '-');
    const { texts, failed } = await readInputs(files, io, host, (f, why) => `${name}: can't open '${f}': ${why}`);
    for (const t of texts) io.out(`${createHash(algo).update(t.text, 'utf8').digest('hex')}  ${t.name}\n`);
    return failed ? 1 : 0;
  };
}

export const md5sum = digest('md5', 'md5sum');
export const sha1sum = digest('sha1', 'sha1sum');
export const sha256sum = digest('sha256', 'sha256sum');
export const sha512sum = digest('sha512', 'sha512sum');
