import type { ShardMap } from '@dominoes/platform';
import { MoveRefusal } from './refusal';

/** What one run of `shards:move` does: copy a shard range to another database, or delete the source's copy. */
export interface MovePlan {
  readonly step: 'copy' | 'delete-source';
  /** The moved shards, ascending; `range` is how the operator wrote them. */
  readonly shards: readonly number[];
  readonly range: string;
  /** Database indexes in DATABASE_URLS. */
  readonly from: number;
  readonly to: number;
  /** DATABASE_SHARD_MAP once the shards are in `to` (formatShardMap of it is what the operator pastes). */
  readonly databaseOfShard: readonly number[];
}

export const USAGE = [
  'usage: npm run shards:move -- --shards <from-to> --to <database>',
  '       npm run shards:move -- --shards <from-to> --from <database> --delete-source',
  '  The first copies the shards to database <database> of DATABASE_URLS and prints the new DATABASE_SHARD_MAP;',
  '  the second, run with that map once every service uses it, deletes them from their old database.',
].join('\n');

function flags(argv: readonly string[]): Map<string, string | true> {
  const found = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (!['--shards', '--to', '--from', '--delete-source'].includes(flag))
      throw new MoveRefusal(`unknown argument "${flag}"`, true);
    if (found.has(flag)) throw new MoveRefusal(`${flag} is given twice`, true);
    if (flag === '--delete-source') {
      found.set(flag, true);
      continue;
    }
    const value = argv[i + 1];
    if (value === undefined || value.startsWith('--')) throw new MoveRefusal(`${flag} needs a value`, true);
    found.set(flag, value);
    i++;
  }
  return found;
}

function shardRange(text: string, shards: number): number[] {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text);
  if (!match) throw new MoveRefusal(`--shards "${text}" is not from-to or one shard`, true);
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  if (first > last) throw new MoveRefusal(`--shards "${text}": ${first} is after ${last}`);
  if (last >= shards)
    throw new MoveRefusal(`--shards "${text}": there are ${shards} shards (0-${shards - 1}, TABLE_SHARDS)`);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function databaseIndex(flag: string, text: string, map: ShardMap): number {
  const count = map.databaseUrls.length;
  if (!/^\d+$/.test(text) || Number(text) >= count)
    throw new MoveRefusal(`${flag} "${text}": DATABASE_URLS lists ${count} database(s) (0-${count - 1})`);
  return Number(text);
}

/** The one database that holds every shard of `shards` in `map`, or a refusal naming them. */
function databaseOf(shards: readonly number[], map: ShardMap, range: string): number {
  const held = [...new Set(shards.map((s) => map.databaseOfShard[s]!))].sort((a, b) => a - b);
  if (held.length > 1)
    throw new MoveRefusal(
      `shards ${range} are in databases ${held.join(' and ')} (DATABASE_SHARD_MAP): move one database's shards at a time`,
    );
  return held[0]!;
}

/** Reads the command line against the shard map of the environment; a MoveRefusal says what is wrong. */
export function parseMoveArgs(argv: readonly string[], map: ShardMap): MovePlan {
  const found = flags(argv);
  const rangeText = found.get('--shards');
  if (typeof rangeText !== 'string') throw new MoveRefusal('--shards is required', true);
  const shards = shardRange(rangeText, map.databaseOfShard.length);
  const to = found.get('--to');
  const from = found.get('--from');
  if (found.has('--delete-source')) {
    if (typeof from !== 'string')
      throw new MoveRefusal(
        '--delete-source needs --from <database>: where the shards were copied from',
        true,
      );
    const source = databaseIndex('--from', from, map);
    const target = databaseOf(shards, map, rangeText);
    if (typeof to === 'string' && databaseIndex('--to', to, map) !== target)
      throw new MoveRefusal(`--to ${to}: DATABASE_SHARD_MAP puts shards ${rangeText} in database ${target}`);
    if (source === target)
      throw new MoveRefusal(
        `DATABASE_SHARD_MAP still puts shards ${rangeText} in database ${source}: run --delete-source with the new map, once every service uses it`,
      );
    return {
      step: 'delete-source',
      shards,
      range: rangeText,
      from: source,
      to: target,
      databaseOfShard: map.databaseOfShard,
    };
  }
  if (typeof from === 'string')
    throw new MoveRefusal('--from goes with --delete-source; a copy takes --to', true);
  if (typeof to !== 'string') throw new MoveRefusal('--to <database> is required', true);
  const target = databaseIndex('--to', to, map);
  const source = databaseOf(shards, map, rangeText);
  if (source === target)
    throw new MoveRefusal(`shards ${rangeText} are in database ${target} already (the same database)`);
  const databaseOfShard = map.databaseOfShard.map((d, s) => (shards.includes(s) ? target : d));
  return { step: 'copy', shards, range: rangeText, from: source, to: target, databaseOfShard };
}
