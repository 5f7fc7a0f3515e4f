import { useId, useState } from 'react';
import { quickPlay, type LobbyTable } from '@dominoes/protocol';
import { HOST_TARGET_RANGE, VARIANTS, type Variant } from '@dominoes/rules';
import { navigate, useSession } from '../hooks';
import { useI18n } from '../i18n';
import { useLobbyTexts } from '../i18n/lobby';
import { quickPlayOnLobby, useLobby, useMinutesSince } from '../lobby-feed';
import { Avatar } from './Avatar';
import { SeatsChoice, TargetChoice } from './RuleChoices';
import { useBusyAction } from './use-busy-action';
import '../lobby.css';
// Where the lobby's Watch button goes: the watching page, /t/<code>?watch=1 (decision 0018).
import { watchPath } from '../watch';

/** Finding a game (issue 12): quick play, the live list of public tables, and your own tables. */
export function FindGame() {
  const [state] = useSession();
  const token = state.identity?.token ?? null;
  const lobby = useLobby(token);
  const l = useLobbyTexts();
  const waiting = lobby.tables.filter((t) => t.status === 'waiting');
  const playing = lobby.tables.filter((t) => t.status === 'playing');
  const status = (
    <span
      className={lobby.status === 'live' ? 'live-dot on' : 'live-dot'}
      data-testid="lobby-status"
      data-state={lobby.status}
    >
      {lobby.status === 'live' ? l.live : lobby.status === 'offline' ? l.offline : '…'}
    </span>
  );
  return (
    <section className="find-game" data-testid="find-game" aria-label={l.openTables}>
      <QuickPlay token={token} />
      {lobby.yours.length > 0 && (
        <TableList
          testId="your-tables"
          titleId="your-tables-title"
          title={l.yourTables}
          tables={lobby.yours}
          offsetMs={lobby.offsetMs}
          action="back"
        />
      )}
      <TableList
        testId="open-tables"
        titleId="open-tables-title"
        title={
          <>
            {l.openTables} {status}
          </>
        }
        tables={waiting}
        offsetMs={lobby.offsetMs}
        action="join"
        empty={l.noOpenTables}
        all={lobby.counts.waiting}
        live
      />
      <TableList
        testId="tables-in-play"
        titleId="in-play-title"
        title={l.inPlay}
        tables={playing}
        offsetMs={lobby.offsetMs}
        action="watch"
        empty={l.noTablesInPlay}
        all={lobby.counts.playing}
      />
    </section>
  );
}

type RowAction = 'join' | 'watch' | 'back';

/** One of the lobby's lists: its title, its rows (or what to say when it has none), and how many it does not show. */
function TableList({
  testId,
  titleId,
  title,
  tables,
  offsetMs,
  action,
  empty,
  all,
  live = false,
}: {
  readonly testId: string;
  readonly titleId: string;
  readonly title: React.ReactNode;
  readonly tables: readonly LobbyTable[];
  readonly offsetMs: number;
  readonly action: RowAction;
  /** Said instead of an empty list; a list without it is only shown with rows. */
  readonly empty?: string;
  /** How many such tables there are in all (the list holds at most a page). */
  readonly all?: number;
  /** Rows announced as they change (aria-live). */
  readonly live?: boolean;
}) {
  const l = useLobbyTexts();
  return (
    <section className="card lobby-list" data-testid={testId} aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      {tables.length === 0 && empty !== undefined ? (
        <p className="hint">{empty}</p>
      ) : (
        <ul aria-live={live ? 'polite' : undefined}>
          {tables.map((t) => (
            <TableRow key={t.tableId} table={t} offsetMs={offsetMs} action={action} />
          ))}
        </ul>
      )}
      {all !== undefined && all > tables.length && (
        <p className="hint">{l.moreTables(all - tables.length)}</p>
      )}
    </section>
  );
}

function TableRow({
  table,
  offsetMs,
  action,
}: {
  readonly table: LobbyTable;
  readonly offsetMs: number;
  readonly action: RowAction;
}) {
  const { t } = useI18n();
  const l = useLobbyTexts();
  const minutes = useMinutesSince(table.openedAt, offsetMs);
  const taken = table.players.filter((p) => p !== null).length;
  const href = action === 'watch' ? watchPath(table.tableId) : `/t/${table.tableId}`;
  const label = action === 'join' ? l.takeSeat : action === 'watch' ? l.watch : l.backToTable;
  const go = (event: React.MouseEvent) => {
    event.preventDefault();
    navigate(href);
  };
  return (
    <li
      className="lobby-table"
      data-testid="lobby-table"
      data-table={table.tableId}
      data-status={table.status}
    >
      <div className="lobby-table-main">
        <p className="lobby-table-title">
          <strong>{t.variantName(table.variant)}</strong>
          {table.variant !== 'five-tile' && <span> · {t.points(table.target)}</span>}
          <span> · {t.seatsOption(table.seatCount)}</span>
          {!table.public && <span className="tag">{l.privateMark}</span>}
          <span className="tag">{table.status === 'waiting' ? l.waitingStatus : l.playingStatus}</span>
        </p>
        <ul className="lobby-seats" aria-label={l.seatsTaken(taken, table.seatCount)}>
          {table.players.map((name, i) =>
            name === null ? (
              <li key={i} className="seat-free">
                {l.freeSeat}
              </li>
            ) : (
              <li key={i}>
                <Avatar name={name} size="sm" />
                <span dir="auto">{name}</span>
              </li>
            ),
          )}
        </ul>
        <p className="hint">
          {l.seatsTaken(taken, table.seatCount)}
          {table.host !== null && <> · {l.hostedBy(table.host)}</>} · {l.openedAgo(minutes)}
        </p>
      </div>
      <a
        className={action === 'join' ? 'button primary' : 'button'}
        href={href}
        onClick={go}
        data-testid={`lobby-${action}`}
      >
        {label}
      </a>
    </li>
  );
}

function QuickPlay({ token }: { readonly token: string | null }) {
  const { t } = useI18n();
  const l = useLobbyTexts();
  const id = useId();
  const [variant, setVariant] = useState<Variant>('partnership');
  const [target, setTarget] = useState<number>(HOST_TARGET_RANGE.default);
  const [seats, setSeats] = useState(2);
  const { busy, error, run } = useBusyAction();
  const go = async (event: React.FormEvent) => {
    event.preventDefault();
    if (token === null) return;
    await run(async () => {
      const request = variant === 'partnership' ? { variant, target } : { variant, seats };
      // On the lobby's socket (seated with it at once); over HTTP when the lobby is not live.
      const tableId =
        (await quickPlayOnLobby(request)) ?? (await quickPlay(location.origin, token, request)).tableId;
      navigate(`/t/${tableId}`);
    });
  };
  return (
    <form className="card quick-play" onSubmit={go} aria-labelledby={`${id}-title`} data-testid="quick-play">
      <h2 id={`${id}-title`}>{l.quickTitle}</h2>
      <p className="hint">{l.quickIntro}</p>
      <div className="quick-fields">
        <div className="field">
          <label htmlFor={`${id}-variant`}>{t.ruleSet}</label>
          <select
            id={`${id}-variant`}
            data-testid="quick-variant"
            value={variant}
            onChange={(e) => setVariant(e.target.value as Variant)}
          >
            {VARIANTS.map((v) => (
              <option key={v} value={v}>
                {t.variantName(v)}
              </option>
            ))}
          </select>
        </div>
        {variant === 'partnership' ? (
          <TargetChoice
            formId={id}
            variant={variant}
            value={target}
            onChange={setTarget}
            testId="quick-target"
          />
        ) : (
          <SeatsChoice formId={id} variant={variant} value={seats} onChange={setSeats} testId="quick-seats" />
        )}
        <button
          type="submit"
          className="primary"
          disabled={busy || token === null}
          data-testid="quick-play-go"
        >
          {busy ? l.quickFinding : l.quickPlay}
        </button>
      </div>
      {error && (
        <p className="hint error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
