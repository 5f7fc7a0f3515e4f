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
  /**
   * Which Postgres server (cluster) the database is on: pg_control_system()'s system identifier
   * when readable, else the URL's host:port. Databases of one server share its WAL figures.
   */
  readonly server?: string;
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
  if (actions > 0 && written === 0)
    warnings.push(
      `Postgres: no row was written in "${b.database}" during the window: is --database-url the database the services use?`,
    );
  return {
    cost: postgresCostOf(
      {
        database: b.database,
        seconds: Math.max(0, (b.atMs - a.atMs) / 1000),
        commits,
        rollbacks: diff(a.xactRollback, b.xactRollback),
        rowsInserted: inserted,
        rowsUpdated: updated,
        rowsDeleted: deleted,
        blocksHit: diff(a.blksHit, b.blksHit),
        blocksRead: diff(a.blksRead, b.blksRead),
        wal,
        walLsnBytes,
      },
      actions,
      postgresNote(b.database),
    ),
    warnings,
  };
}

/** A window's totals, before they are divided (rowsWritten and perAction come from them). */
export type PostgresTotals = Omit<PostgresCost, 'rowsWritten' | 'perAction' | 'note'>;

/** The PostgresCost of a window's totals: rows written, rounded seconds, and per action. */
export function postgresCostOf(t: PostgresTotals, actions: number, note: string): PostgresCost {
  const written = t.rowsInserted + t.rowsUpdated + t.rowsDeleted;
  const per = (n: number, digits = 3) => perAction(n, actions, digits)!;
  // The fields in the order report.json has always had them.
  return {
    database: t.database,
    seconds: round(t.seconds, 3),
    commits: t.commits,
    rollbacks: t.rollbacks,
    rowsInserted: t.rowsInserted,
    rowsUpdated: t.rowsUpdated,
    rowsDeleted: t.rowsDeleted,
    rowsWritten: written,
    blocksHit: t.blocksHit,
    blocksRead: t.blocksRead,
    wal: t.wal,
    walLsnBytes: t.walLsnBytes,
    perAction:
      actions > 0
        ? {
            commits: per(t.commits),
            rowsWritten: per(written),
            rowsInserted: per(t.rowsInserted),
            rowsUpdated: per(t.rowsUpdated),
            rowsDeleted: per(t.rowsDeleted),
            blocksHit: per(t.blocksHit, 2),
            blocksRead: per(t.blocksRead, 2),
            walRecords: t.wal ? per(t.wal.records, 2) : null,
            walBytes: t.wal ? per(t.wal.bytes, 0) : t.walLsnBytes !== null ? per(t.walLsnBytes, 0) : null,
            walLsnBytes: t.walLsnBytes !== null ? per(t.walLsnBytes, 0) : null,
          }
        : null,
    note,
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
    readonly url: string,
    /** See PgSnapshot.server. */
    readonly server: string,
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
      const server = await client
        .query<{ id: string }>('select system_identifier::text as id from pg_control_system()')
        .then((r) => `system ${r.rows[0]!.id}`)
        .catch(() => {
          const u = new URL(url);
          return `${u.hostname}:${u.port || '5432'}`;
        });
      return new PostgresSampler(client, rows[0]?.wal != null, url, server);
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
      server: this.server,
    };
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** One database's window when --database-url names several: its cost, where it is, and its server. */
export interface PostgresDatabaseCost extends PostgresCost {
  /** The URL read (without its password). */
  readonly url: string;
  /** See PgSnapshot.server: databases with the same one share (and sum once) its WAL figures. */
  readonly server: string;
}

export const POSTGRES_SUM_NOTE =
  'The sum of the databases listed (pg_stat_database of each; every client of each counts). ' +
  'The WAL figures are per server: a server holding several of the databases counts once. ' +
  'Each backend publishes its counters at most once a second, so a short window can be off by about a second of work at each end.';

/** The databases' costs added up into one PostgresCost (WAL once per server). */
export function sumPostgresCosts(costs: readonly PostgresDatabaseCost[], actions: number): PostgresCost {
  const sum = (pick: (c: PostgresCost) => number) => costs.reduce((s, c) => s + pick(c), 0);
  const servers = new Map<string, PostgresDatabaseCost>();
  for (const c of costs) if (!servers.has(c.server)) servers.set(c.server, c);
  const once = [...servers.values()];
  const wal = once.every((c) => c.wal !== null)
    ? {
        records: once.reduce((s, c) => s + c.wal!.records, 0),
        fpi: once.reduce((s, c) => s + c.wal!.fpi, 0),
        bytes: once.reduce((s, c) => s + c.wal!.bytes, 0),
      }
    : null;
  const walLsnBytes = once.every((c) => c.walLsnBytes !== null)
    ? once.reduce((s, c) => s + c.walLsnBytes!, 0)
    : null;
  return postgresCostOf(
    {
      database: costs.map((c) => c.database).join(', '),
      seconds: Math.max(0, ...costs.map((c) => c.seconds)),
      commits: sum((c) => c.commits),
      rollbacks: sum((c) => c.rollbacks),
      rowsInserted: sum((c) => c.rowsInserted),
      rowsUpdated: sum((c) => c.rowsUpdated),
      rowsDeleted: sum((c) => c.rowsDeleted),
      blocksHit: sum((c) => c.blocksHit),
      blocksRead: sum((c) => c.blocksRead),
      wal,
      walLsnBytes,
    },
    actions,
    POSTGRES_SUM_NOTE,
  );
}
