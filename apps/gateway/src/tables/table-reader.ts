import { Pool } from 'pg';
import { TableCodeSchema, TableStatusSchema, VariantSchema, type TableSummary } from '@dominoes/protocol';

interface Row {
  id: string;
  variant: string;
  seat_count: number;
  target: number;
  one_round: boolean;
  status: string;
  seats: { seat: number; name: string }[];
}

const SUMMARY = `
  select t.id, t.variant, t.seat_count, t.target, t.one_round, t.status,
         coalesce(json_agg(json_build_object('seat', s.seat, 'name', s.name)) filter (where s.seat is not null), '[]') as seats
    from game_tables t
    left join table_seats s on s.table_id = t.id
   where t.id = $1
   group by t.id`;

const STORED_INTENT = `
  select t.version,
         (select s.seat from table_seats s where s.table_id = t.id and s.player_id = $3::uuid) as seat
    from table_actions a
    join game_tables t on t.id = a.table_id
   where a.table_id = $1 and a.intent_id = $2`;

/**
 * The gateway keeps no game state: a table's public summary is read from Postgres, on a small pool
 * whose sessions are read-only (the table-service is the only writer).
 */
export class TableReader {
  private readonly pool: Pool;

  constructor(databaseUrl: string) {
    this.pool = new Pool({
      connectionString: databaseUrl,
      max: 4,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 3_000,
      options: '-c default_transaction_read_only=on -c statement_timeout=3000',
    });
    // An idle client that loses its server must not crash the process.
    this.pool.on('error', () => undefined);
  }

  /** The summary of table `code`, or null when there is none (a malformed code included). */
  async summary(code: string): Promise<TableSummary | null> {
    if (!TableCodeSchema.safeParse(code).success) return null;
    const { rows } = await this.pool.query<Row>(SUMMARY, [code]);
    const row = rows[0];
    if (!row) return null;
    const players: (string | null)[] = new Array<string | null>(row.seat_count).fill(null);
    for (const seat of row.seats)
      if (seat.seat >= 0 && seat.seat < players.length) players[seat.seat] = seat.name;
    const status = TableStatusSchema.safeParse(row.status);
    return {
      tableId: row.id,
      variant: VariantSchema.parse(row.variant),
      seatCount: row.seat_count,
      target: row.target,
      oneRound: row.one_round,
      status: status.success ? status.data : 'waiting',
      players,
    };
  }

  /**
   * Whether intent `intentId` is stored in table `tableId`'s log, and if so the table's version and
   * the player's seat now. The gateway asks once an intent's reply is overdue: by then its expiry has
   * passed, so the answer cannot change any more (issue 11: what a player is told is what happened).
   */
  async storedIntent(
    tableId: string,
    intentId: string,
    playerId: string | null,
  ): Promise<{ version: number; seat: number | null } | null> {
    const { rows } = await this.pool.query<{ version: string; seat: number | null }>(STORED_INTENT, [
      tableId,
      intentId,
      playerId,
    ]);
    const row = rows[0];
    return row ? { version: Number(row.version), seat: row.seat } : null;
  }

  async ping(): Promise<boolean> {
    try {
      await this.pool.query('select 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}
