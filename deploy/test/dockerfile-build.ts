/**
 * Replays the Dockerfile's stages on this machine, without a Docker engine, for deploy/test/image-contents.test.ts.
 *
 * The instructions are read from the Dockerfile itself, never copied: FROM, ARG, ENV, WORKDIR, COPY and RUN are
 * carried out in a scratch directory, one per stage, whose subdirectories stand for the image's top-level paths
 * (`/src`, `/app`, `/out`). RUN commands run with `/bin/sh -c` (as in the node images) in the stage's WORKDIR, with
 * the stage's ARG and ENV values, those paths rewritten, and `--mount=type=cache` dropped. Anything this replay
 * cannot do faithfully (another instruction, another COPY flag, another absolute path in a RUN command, a heredoc)
 * stops it with the reason, so a changed Dockerfile fails the test instead of being half-replayed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  /** 1-based line of the instruction's first line in the Dockerfile. */
  readonly line: number;
}

export interface Stage {
  readonly name: string;
  /** The FROM image, ARGs expanded. */
  readonly image: string;
  readonly instructions: Instruction[];
}

export interface ParsedDockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  readonly globalArgs: Record<string, string | undefined>;
  readonly stages: Stage[];
}

/** Top-level image paths that the replay maps to scratch directories (one set per stage). */
export const MAPPED_ROOTS = ['/src', '/app', '/out'] as const;

/** Instructions, with continuation lines joined and comment lines dropped (as Docker does, even inside a RUN). */
export function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  let buffer = '';
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*#/.test(line)) continue;
    if (buffer === '' && line.trim() === '') continue;
    if (buffer === '') start = i + 1;
    if (/\\\s*$/.test(line)) {
      buffer += line.replace(/\\\s*$/, '') + ' ';
      continue;
    }
    buffer += line;
    const trimmed = buffer.trim();
    buffer = '';
    if (trimmed === '') continue;
    const [keyword, ...rest] = trimmed.split(/\s+/);
    out.push({ keyword: keyword.toUpperCase(), args: rest.join(' '), line: start });
  }
  if (buffer.trim() !== '') throw new Error('Dockerfile ends inside a continued line');
  return out;
}

/** `${NAME}` and `$NAME` from vars; an unknown name expands to '' (as Docker does). */
export function expand(text: string, vars: Record<string, string | undefined>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a, b) => {
    return vars[(a ?? b) as string] ?? '';
  });
}

/** `KEY=value KEY2="value 2"` (or the legacy `KEY value`) into pairs. */
export function keyValues(args: string): Array<[string, string]> {
  const first = /^\S+/.exec(args)?.[0] ?? '';
  if (!first.includes('=')) {
    const [key, ...rest] = args.split(/\s+/);
    return [[key, rest.join(' ')]];
  }
  const pairs: Array<[string, string]> = [];
  const re = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g;
  let rest = args.trim();
  let m: RegExpExecArray | null;
  while (rest !== '' && (m = re.exec(rest)) !== null && m.index === 0) {
    const raw = m[2];
    const value = /^["']/.test(raw) ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
    pairs.push([m[1], value]);
    rest = rest.slice(m[0].length).trim();
    re.lastIndex = 0;
  }
  if (rest !== '') throw new Error(`cannot read "${args}" as KEY=value pairs`);
  return pairs;
}

export function parseDockerfile(text: string): ParsedDockerfile {
  const globalArgs: Record<string, string | undefined> = {};
  const stages: Stage[] = [];
  for (const ins of instructions(text)) {
    if (ins.keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)\s+AS\s+(\S+)$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: FROM without "AS <name>": ${ins.args}`);
      stages.push({ name: m[2].toLowerCase(), image: expand(m[1], globalArgs), instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== 'ARG') throw new Error(`line ${ins.line}: ${ins.keyword} before the first FROM`);
      const [name, ...value] = ins.args.split('=');
      globalArgs[name.trim()] = value.length > 0 ? value.join('=') : undefined;
    } else {
      stages[stages.length - 1].instructions.push(ins);
    }
  }
  return { globalArgs, stages };
}

export function stage(parsed: ParsedDockerfile, name: string): Stage {
  const found = parsed.stages.find((s) => s.name === name);
  if (!found) throw new Error(`the Dockerfile has no stage "${name}"`);
  return found;
}

/** JSON (exec) form of CMD / ENTRYPOINT. */
export const execForm = (args: string): string[] => JSON.parse(args) as string[];

// ---------------------------------------------------------------------------------------------------------------
// .dockerignore and the build context

function patternToRegExp(pattern: string): RegExp {
  if (/[[\]\\]/.test(pattern))
    throw new Error(`.dockerignore pattern "${pattern}": [..] and \\ are not supported`);
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '*' && pattern[i + 1] === '*') {
      // "**/" matches any number of directories, including none; a trailing "**" anything.
      if (pattern[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * Docker's .dockerignore rules: patterns relative to the context root, a pattern that matches a directory
 * excludes everything in it, `!` re-includes, the last matching pattern wins.
 */
export function dockerignoreFilter(text: string): (file: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = path.posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      return { negate, re: patternToRegExp(pattern) };
    });
  return (file: string) => {
    const parts = file.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) {
      if (prefixes.some((p) => rule.re.test(p))) excluded = !rule.negate;
    }
    return !excluded;
  };
}

/**
 * The build context of `docker build .` from this working tree: the files git knows or would add (tracked, and
 * untracked but not git-ignored; deleted ones skipped), less what .dockerignore excludes. No node_modules, no dist.
 */
export function copyBuildContext(repoRoot: string, dest: string): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const keep = dockerignoreFilter(fs.readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8'));
  const files = [...new Set(listed.stdout.split('\0').filter(Boolean))].filter(keep).sort();
  const copied: string[] = [];
  for (const file of files) {
    const from = path.join(repoRoot, file);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(from);
    } catch {
      continue; // deleted in the working tree: not in the context
    }
    const to = path.join(dest, file);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (stat.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(from), to);
    else if (stat.isFile()) {
      fs.copyFileSync(from, to);
      fs.chmodSync(to, stat.mode & 0o755);
    } else continue;
    copied.push(file);
  }
  return copied;
}

// ---------------------------------------------------------------------------------------------------------------
// Replaying a stage

/** Every child process this module started and that may still run: killed by killAll(). */
const children = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) continue;
    try {
      process.kill(-child.pid, 'SIGKILL'); // its own process group: npm and what it started
    } catch {
      child.kill('SIGKILL');
    }
  }
  children.clear();
}

export interface ReplayOptions {
  /** Where the stages' filesystems go: `<scratch>/<stage>/src`, `<scratch>/<stage>/out`, ... */
  readonly scratch: string;
  /** The build context (`COPY . .` copies from here). */
  readonly context: string;
  /** Environment every RUN starts from (the base image's): PATH, HOME, proxies. */
  readonly baseEnv: Record<string, string>;
  readonly globalArgs: Record<string, string | undefined>;
  /** Where RUN output goes. */
  readonly log: fs.WriteStream;
  /**
   * Called before each RUN with the command (ARGs and ENV expanded for the decision only): return a reason to skip
   * it, undefined to run it, or throw to stop the replay.
   */
  readonly beforeRun?: (command: string, env: Record<string, string>) => string | undefined;
  /** false: RUN commands are recorded, not run (the runtime stage's system setup). */
  readonly run?: boolean;
}

export interface StageResult {
  readonly name: string;
  readonly workdir: string;
  /** WORKDIR as written (an image path). */
  readonly imageWorkdir: string;
  readonly env: Record<string, string>;
  readonly args: Record<string, string>;
  readonly user?: string;
  readonly cmd?: string[];
  readonly entrypoint?: string[];
  readonly ran: Array<{ command: string; seconds: number }>;
  readonly skipped: Array<{ command: string; reason: string }>;
}

/** The scratch directory that stands for an absolute image path in a stage. */
export function mapPath(scratch: string, stageName: string, imagePath: string): string {
  const normal = path.posix.normalize(imagePath);
  const root = MAPPED_ROOTS.find((r) => normal === r || normal.startsWith(`${r}/`));
  if (!root) {
    throw new Error(
      `${imagePath} (stage ${stageName}) is not one of ${MAPPED_ROOTS.join(', ')}: add it to MAPPED_ROOTS`,
    );
  }
  return path.join(scratch, stageName, normal.slice(1));
}

/** The RUN command with every /src, /app, /out path pointing into the stage's scratch directory. */
export function rewriteRun(command: string, scratch: string, stageName: string): string {
  if (/<<-?\s*['"]?[A-Za-z_]/.test(command)) throw new Error(`heredocs are not supported: ${command}`);
  const absolute = /(^|[\s"'=;(|&<>])(\/[A-Za-z0-9_.@-]*)(?=[\s/"';|&)<>]|$)/g;
  for (const m of command.matchAll(absolute)) {
    const p = m[2];
    if (p === '/dev') continue; // 2>/dev/null
    if (!MAPPED_ROOTS.includes(p as (typeof MAPPED_ROOTS)[number])) {
      throw new Error(
        `RUN uses ${p}, which this replay does not map to a scratch directory (stage ${stageName}): ${command}`,
      );
    }
  }
  return command.replace(absolute, (_, before: string, p: string) =>
    p === '/dev' ? `${before}${p}` : `${before}${path.join(scratch, stageName, p.slice(1))}`,
  );
}

function copyInto(src: string, dest: string, destIsDir: boolean): void {
  const stat = fs.statSync(src);
  const cp = (args: string[]) => {
    const r = spawnSync('cp', args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`cp ${args.join(' ')} failed: ${r.stderr}`);
  };
  // Not -a: like COPY, the copies belong to the user running the build (root), modes and symlinks kept.
  if (stat.isDirectory()) {
    fs.mkdirSync(dest, { recursive: true });
    cp(['-R', '--preserve=mode,timestamps,links', `${src}/.`, `${dest}/`]);
  } else {
    const target = destIsDir ? path.join(dest, path.basename(src)) : dest;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    cp(['--preserve=mode,timestamps', src, target]);
  }
}

function runShell(
  command: string,
  cwd: string,
  env: Record<string, string>,
  log: fs.WriteStream,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; tail: string }> {
  return new Promise((resolve, reject) => {
    // /bin/sh -c, as Docker runs a shell-form RUN; umask 022 as in a build container.
    const child = spawn('/bin/sh', ['-c', `umask 0022\n${command}`], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.add(child);
    let tail = '';
    const collect = (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-6000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, tail });
    });
  });
}

/** Carries out one stage's instructions; `stages` holds the stages already replayed (for COPY --from). */
export async function replayStage(
  target: Stage,
  options: ReplayOptions,
  stages: Record<string, StageResult>,
): Promise<StageResult> {
  const { scratch, context, baseEnv, globalArgs, log } = options;
  const args: Record<string, string> = {};
  const env: Record<string, string> = {};
  const vars = () => ({ ...args, ...env });
  let imageWorkdir = '/';
  let workdir: string | undefined;
  let user: string | undefined;
  let cmd: string[] | undefined;
  let entrypoint: string[] | undefined;
  const ran: StageResult['ran'] = [];
  const skipped: StageResult['skipped'] = [];
  const where = (ins: Instruction) =>
    `Dockerfile line ${ins.line} (${target.name}: ${ins.keyword} ${ins.args})`;

  for (const ins of target.instructions) {
    switch (ins.keyword) {
      case 'ARG': {
        const [name, ...value] = ins.args.split('=');
        const fallback = value.length > 0 ? value.join('=') : globalArgs[name.trim()];
        if (fallback === undefined) throw new Error(`${where(ins)}: no value`);
        args[name.trim()] = fallback;
        break;
      }
      case 'ENV':
        for (const [key, value] of keyValues(ins.args)) env[key] = expand(value, vars());
        break;
      case 'WORKDIR': {
        const p = expand(ins.args, vars());
        imageWorkdir = path.posix.isAbsolute(p) ? p : path.posix.join(imageWorkdir, p);
        workdir = mapPath(scratch, target.name, imageWorkdir);
        fs.mkdirSync(workdir, { recursive: true });
        break;
      }
      case 'COPY': {
        const words = expand(ins.args, vars()).split(/\s+/);
        let from: string | undefined;
        while (words[0]?.startsWith('--')) {
          const flag = words.shift()!;
          if (flag.startsWith('--from=')) from = flag.slice('--from='.length).toLowerCase();
          else throw new Error(`${where(ins)}: COPY ${flag} is not supported by this replay`);
        }
        if (words.length < 2 || words[0].startsWith('['))
          throw new Error(`${where(ins)}: unsupported COPY form`);
        const destWord = words.pop()!;
        const dest = path.posix.isAbsolute(destWord)
          ? mapPath(scratch, target.name, destWord)
          : path.join(workdir ?? mapPath(scratch, target.name, imageWorkdir), destWord);
        const destIsDir = destWord.endsWith('/') || destWord === '.' || words.length > 1;
        for (const src of words) {
          let source: string;
          if (from !== undefined) {
            if (!stages[from]) throw new Error(`${where(ins)}: stage ${from} has not been replayed`);
            if (!path.posix.isAbsolute(src)) throw new Error(`${where(ins)}: relative --from source`);
            source = mapPath(scratch, from, src);
          } else {
            if (path.posix.isAbsolute(src) || src.split('/').includes('..') || /[*?[]/.test(src)) {
              throw new Error(`${where(ins)}: unsupported context source ${src}`);
            }
            source = path.join(context, src);
          }
          copyInto(source, dest, destIsDir);
        }
        break;
      }
      case 'RUN': {
        let command = ins.args;
        for (;;) {
          const flag = /^--(\S+)\s+/.exec(command);
          if (!flag) break;
          if (!flag[1].startsWith('mount=type=cache,')) {
            throw new Error(`${where(ins)}: RUN --${flag[1]} is not supported by this replay`);
          }
          command = command.slice(flag[0].length); // the cache mount only speeds the build up
        }
        if (command.startsWith('[')) throw new Error(`${where(ins)}: exec-form RUN is not supported`);
        const runEnv = { ...baseEnv, ...args, ...env };
        if (options.run === false) {
          skipped.push({ command, reason: 'system setup of the base image, not replayed' });
          break;
        }
        const reason = options.beforeRun?.(expand(command, runEnv), runEnv);
        if (reason !== undefined) {
          skipped.push({ command, reason });
          break;
        }
        if (!workdir) throw new Error(`${where(ins)}: RUN before WORKDIR`);
        const rewritten = rewriteRun(command, scratch, target.name);
        log.write(`\n==> [${target.name}] ${command}\n    (as: ${rewritten})\n`);
        const started = Date.now();
        const result = await runShell(rewritten, workdir, runEnv, log);
        const seconds = (Date.now() - started) / 1000;
        log.write(`<== exit ${result.code ?? result.signal} after ${seconds.toFixed(1)} s\n`);
        if (result.code !== 0) {
          throw new Error(
            `${where(ins)} failed (exit ${result.code ?? result.signal}); last output:\n${result.tail}`,
          );
        }
        ran.push({ command, seconds });
        break;
      }
      case 'USER':
        user = expand(ins.args, vars());
        break;
      case 'CMD':
        cmd = execForm(ins.args);
        break;
      case 'ENTRYPOINT':
        entrypoint = execForm(ins.args);
        break;
      case 'EXPOSE':
      case 'LABEL':
        break;
      default:
        throw new Error(`${where(ins)}: ${ins.keyword} is not supported by this replay`);
    }
  }
  if (!workdir) throw new Error(`stage ${target.name} has no WORKDIR`);
  return { name: target.name, workdir, imageWorkdir, env, args, user, cmd, entrypoint, ran, skipped };
}
