/**
 * What the measure window cost Postgres: `pg_stat_database` of one database (commits, rows
 * written, blocks) and, when present (Postgres 14+), `pg_stat_wal`, plus the WAL position, read at
 * the window's start and end. Whole-database counters: every client of that database counts.
 */
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { perAction, round } from './cost-math';

export interface PgSnapshot {
  /** performance.now() when the reply came. */
  readonly atMs: number;
  readonly database: string;
  readonly xactCommit: number;
  readonly xactRollback: number;
  readonly tupInserted: number;
  readonly tupUpdated: number;
  readonly tupDeleted: number;
  readonly blksHit: number;
  readonly blksRead: number;
  /** pg_stat_wal (the whole cluster), or null before Postgres 14. */
  readonly wal: { readonly records: number; readonly fpi: number; readonly bytes: number } | null;
  /** pg_current_wal_lsn() in bytes (null on a standby). */
  readonly walLsn: number | null;
}

export interface PostgresCost {
  readonly database: string;
  /** Between the two readings. */
  readonly seconds: number;
  readonly commits: number;
  readonly rollbacks: number;
  readonly rowsInserted: number;
  readonly rowsUpdated: number;
  readonly rowsDeleted: number;
  /** Inserted + updated + deleted. */
  readonly rowsWritten: number;
  readonly blocksHit: number;
  readonly blocksRead: number;
  /** pg_stat_wal's difference (the whole cluster), or null without pg_stat_wal. */
  readonly wal: { readonly records: number; readonly fpi: number; readonly bytes: number } | null;
  /** The difference of pg_current_wal_lsn(): the WAL written by the whole cluster, exact at both edges. */
  readonly walLsnBytes: number | null;
  /** Null when the window has no actions. */
  readonly perAction: {
    readonly commits: number;
    readonly rowsWritten: number;
    readonly rowsInserted: number;
    readonly rowsUpdated: number;
    readonly rowsDeleted: number;
    readonly blocksHit: number;
    readonly blocksRead: number;
    readonly walRecords: number | null;
    /** pg_stat_wal's wal_bytes when present, else the WAL position's difference. */
    readonly walBytes: number | null;
    readonly walLsnBytes: number | null;
  } | null;
  readonly note: string;
}

export const postgresNote = (database: string): string =>
  `Whole-database counters (pg_stat_database of "${database}"): every client of that database counts, not only the services under test; ` +
  'the WAL figures are for the whole cluster. Each backend publishes its counters at most once a second (an idle one within 10 s), ' +
  'so a short window can be off by about a second of work at each end. The tool\u2019s own reading transactions count as commits.';

const diff = (a: number, b: number) => Math.max(0, b - a);

export function postgresCost(
  a: PgSnapshot,
  b: PgSnapshot,
  actions: number,
): { cost: PostgresCost; warnings: string[] } {
  const warnings: string[] = [];
  if (b.xactCommit < a.xactCommit)
    warnings.push(
      `Postgres: the counters of "${b.database}" went down during the window (pg_stat_reset): the Postgres figures are wrong.`,
    );
  const inserted = diff(a.tupInserted, b.tupInserted);
  const updated = diff(a.tupUpdated, b.tupUpdated);
  const deleted = diff(a.tupDeleted, b.tupDeleted);
  const written = inserted + updated + deleted;
  const commits = diff(a.xactCommit, b.xactCommit);
  const wal =
    a.wal && b.wal
      ? {
          records: diff(a.wal.records, b.wal.records),
          fpi: diff(a.wal.fpi, b.wal.fpi),
          bytes: diff(a.wal.bytes, b.wal.bytes),
        }
      : null;
  const walLsnBytes = a.walLsn !== null && b.walLsn !== null ? diff(a.walLsn, b.walLsn) : null;
  const seconds = Math.max(0, (b.atMs - a.atMs) / 1000);
  const per = (n: number, digits = 3) => perAction(n, actions, digits)!;
  if (actions > 0 && written === 0)
    warnings.push(
      `Postgres: no row was written in "${b.database}" during the window: is --database-url the database the services use?`,
    );
  return {
    cost: {
      database: b.database,
      seconds: round(seconds, 3),
      commits,
      rollbacks: diff(a.xactRollback, b.xactRollback),
      rowsInserted: inserted,
      rowsUpdated: updated,
      rowsDeleted: deleted,
      rowsWritten: written,
      blocksHit: diff(a.blksHit, b.blksHit),
      blocksRead: diff(a.blksRead, b.blksRead),
      wal,
      walLsnBytes,
      perAction:
        actions > 0
          ? {
              commits: per(commits),
              rowsWritten: per(written),
              rowsInserted: per(inserted),
              rowsUpdated: per(updated),
              rowsDeleted: per(deleted),
              blocksHit: per(diff(a.blksHit, b.blksHit), 2),
              blocksRead: per(diff(a.blksRead, b.blksRead), 2),
              walRecords: wal ? per(wal.records, 2) : null,
              walBytes: wal ? per(wal.bytes, 0) : walLsnBytes !== null ? per(walLsnBytes, 0) : null,
              walLsnBytes: walLsnBytes !== null ? per(walLsnBytes, 0) : null,
            }
          : null,
      note: postgresNote(b.database),
    },
    warnings,
  };
}

const num = (value: unknown): number => {
  const n = Number(value);
  if (!Number.isFinite(n)) throw new Error(`Postgres returned a non-number: ${String(value)}`);
  return n;
};

/** One connection to the database, opened before the ramp and read at the window's edges. */
export class PostgresSampler {
  private constructor(
    private readonly client: Client,
    private readonly hasStatWal: boolean,
  ) {}

  static async connect(url: string, timeoutMs = 5000): Promise<PostgresSampler> {
    const client = new Client({
      connectionString: url,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      application_name: 'dominoes-loadtest-cost',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const { rows } = await client.query<{ wal: string | null }>(
        "select to_regclass('pg_catalog.pg_stat_wal')::text as wal",
      );
      return new PostgresSampler(client, rows[0]?.wal != null);
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
  }

  async snapshot(): Promise<PgSnapshot> {
    // One statement, one transaction: the statistics snapshot is taken afresh.
    const { rows } = await this.client.query<Record<string, string | null>>(
      `select d.datname, d.xact_commit, d.xact_rollback, d.tup_inserted, d.tup_updated, d.tup_deleted,
              d.blks_hit, d.blks_read,
              ${this.hasStatWal ? 'w.wal_records, w.wal_fpi, w.wal_bytes' : 'null as wal_records, null as wal_fpi, null as wal_bytes'},
              case when pg_is_in_recovery() then null
                   else pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text end as wal_lsn
         from pg_stat_database d ${this.hasStatWal ? 'cross join pg_stat_wal w' : ''}
        where d.datname = current_database()`,
    );
    const atMs = performance.now();
    const r = rows[0];
    if (r === undefined) throw new Error('pg_stat_database has no row for the current database');
    return {
      atMs,
      database: String(r['datname']),
      xactCommit: num(r['xact_commit']),
      xactRollback: num(r['xact_rollback']),
      tupInserted: num(r['tup_inserted']),
      tupUpdated: num(r['tup_updated']),
      tupDeleted: num(r['tup_deleted']),
      blksHit: num(r['blks_hit']),
      blksRead: num(r['blks_read']),
      wal:
        r['wal_records'] == null
          ? null
          : { records: num(r['wal_records']), fpi: num(r['wal_fpi']), bytes: num(r['wal_bytes']) },
      walLsn: r['wal_lsn'] == null ? null : num(r['wal_lsn']),
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
