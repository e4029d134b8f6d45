// A real PKCS#10 certificate signing request for tests, made with node:crypto
// and a minimal DER writer (no openssl needed): an ECDSA P-256 key, a subject
// of CN (and O for each group), signed with ecdsa-with-SHA256. Also a
// self-signed certificate of the same make, for what a signer would issue.
import { generateKeyPairSync, sign } from 'node:crypto';

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, ...content: Buffer[]) => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
};
const seq = (...c: Buffer[]) => tlv(0x30, ...c);
const set = (...c: Buffer[]) => tlv(0x31, ...c);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const arc of rest) {
    const digits: number[] = [];
    for (let v = arc; ; v = Math.floor(v / 128)) {
      digits.unshift((v % 128) | (digits.length ? 0x80 : 0));
      if (v < 128) break;
    }
    out.push(...digits);
  }
  return tlv(0x06, Buffer.from(out));
}

const rdn = (type: string, value: string) => set(seq(oid(type), tlv(0x0c, Buffer.from(value, 'utf8'))));

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const pem = (label: string, der: Buffer) =>
  `-----BEGIN ${label}-----\n${der
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;

/** A PEM "CERTIFICATE REQUEST" for `cn`, with an O= entry per group. */
export function certificateRequestPem(cn: string, groups: string[] = []): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const subject = seq(...groups.map((g) => rdn('2.5.4.10', g)), rdn('2.5.4.3', cn));
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const info = seq(tlv(0x02, Buffer.from([0])), subject, spki, Buffer.from([0xa0, 0x00]));
  const signature = sign('sha256', info, privateKey);
  return pem('CERTIFICATE REQUEST', seq(info, seq(oid(ECDSA_SHA256)), tlv(0x03, Buffer.from([0]), signature)));
}

/** UTCTime: YYMMDDHHMMSSZ. */
const utcTime = (d: Date) => tlv(0x17, Buffer.from(d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));

/** A PEM "CERTIFICATE", self-signed, for `cn`, valid for a day from now. */
export function selfSignedCertificatePem(cn: string): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = seq(rdn('2.5.4.3', cn));
  const now = new Date();
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, Buffer.from([1])),
    seq(oid(ECDSA_SHA256)),
    name,
    seq(utcTime(now), utcTime(new Date(now.getTime() + 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  return pem('CERTIFICATE', seq(tbs, seq(oid(ECDSA_SHA256)), tlv(0x03, Buffer.from([0]), sign('sha256', tbs, privateKey))));
}
