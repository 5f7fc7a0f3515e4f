import { useId, useState } from 'react';
import { quickPlay, type LobbyTable } from '@dominoes/protocol';
import { HOST_TARGET_RANGE, RULE_SETS, VARIANTS, type Variant } from '@dominoes/rules';
import { navigate, useSession } from '../hooks';
import { useI18n } from '../i18n';
import { useLobbyTexts } from '../i18n/lobby';
import { quickPlayOnLobby, useLobby, useMinutesSince } from '../lobby-feed';
import { problemOf } from '../session';
import { Avatar } from './Avatar';
import '../lobby.css';
// Where the lobby's Watch button goes: the watching page, /t/<code>?watch=1 (decision 0018).
import { watchPath } from '../watch';

const targetsOf = (variant: Variant): number[] => [...RULE_SETS[variant].targets].sort((a, b) => a - b);
const seatCountsOf = (variant: Variant): number[] => {
  const { minSeats, maxSeats } = RULE_SETS[variant];
  return Array.from({ length: maxSeats - minSeats + 1 }, (_, i) => minSeats + i);
};

/** Finding a game (issue 12): quick play, the live list of public tables, and your own tables. */
export function FindGame() {
  const [state] = useSession();
  const token = state.identity?.token ?? null;
  const lobby = useLobby(token);
  const l = useLobbyTexts();
  const waiting = lobby.tables.filter((t) => t.status === 'waiting');
  const playing = lobby.tables.filter((t) => t.status === 'playing');
  const more = (shown: number, all: number) =>
    all > shown ? <p className="hint">{l.moreTables(all - shown)}</p> : null;
  return (
    <section className="find-game" data-testid="find-game" aria-label={l.openTables}>
      <QuickPlay token={token} />
      {lobby.yours.length > 0 && (
        <section className="card lobby-list" data-testid="your-tables" aria-labelledby="your-tables-title">
          <h2 id="your-tables-title">{l.yourTables}</h2>
          <ul>
            {lobby.yours.map((t) => (
              <TableRow key={t.tableId} table={t} offsetMs={lobby.offsetMs} action="back" />
            ))}
          </ul>
        </section>
      )}
      <section className="card lobby-list" data-testid="open-tables" aria-labelledby="open-tables-title">
        <h2 id="open-tables-title">
          {l.openTables}{' '}
          <span
            className={lobby.status === 'live' ? 'live-dot on' : 'live-dot'}
            data-testid="lobby-status"
            data-state={lobby.status}
          >
            {lobby.status === 'live' ? l.live : lobby.status === 'offline' ? l.offline : '…'}
          </span>
        </h2>
        {waiting.length === 0 ? (
          <p className="hint">{l.noOpenTables}</p>
        ) : (
          <ul aria-live="polite">
            {waiting.map((t) => (
              <TableRow key={t.tableId} table={t} offsetMs={lobby.offsetMs} action="join" />
            ))}
          </ul>
        )}
        {more(waiting.length, lobby.counts.waiting)}
      </section>
      <section className="card lobby-list" data-testid="tables-in-play" aria-labelledby="in-play-title">
        <h2 id="in-play-title">{l.inPlay}</h2>
        {playing.length === 0 ? (
          <p className="hint">{l.noTablesInPlay}</p>
        ) : (
          <ul>
            {playing.map((t) => (
              <TableRow key={t.tableId} table={t} offsetMs={lobby.offsetMs} action="watch" />
            ))}
          </ul>
        )}
        {more(playing.length, lobby.counts.playing)}
      </section>
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
  readonly action: 'join' | 'watch' | 'back';
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const go = async (event: React.FormEvent) => {
    event.preventDefault();
    if (token === null) return;
    setBusy(true);
    setError(null);
    try {
      const request = variant === 'partnership' ? { variant, target } : { variant, seats };
      // On the lobby's socket (seated with it at once); over HTTP when the lobby is not live.
      const tableId =
        (await quickPlayOnLobby(request)) ?? (await quickPlay(location.origin, token, request)).tableId;
      navigate(`/t/${tableId}`);
    } catch (e) {
      const p = problemOf(e);
      setError(t.errorText(p.code, p.message));
    } finally {
      setBusy(false);
    }
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
          <div className="field">
            <label htmlFor={`${id}-target`}>{t.target}</label>
            <select
              id={`${id}-target`}
              data-testid="quick-target"
              value={target}
              onChange={(e) => setTarget(Number(e.target.value))}
            >
              {targetsOf(variant).map((n) => (
                <option key={n} value={n}>
                  {t.points(n)}
                </option>
              ))}
            </select>
          </div>
        ) : (
          <div className="field">
            <label htmlFor={`${id}-seats`}>{t.seats}</label>
            <select
              id={`${id}-seats`}
              data-testid="quick-seats"
              value={seats}
              onChange={(e) => setSeats(Number(e.target.value))}
            >
              {seatCountsOf(variant).map((n) => (
                <option key={n} value={n}>
                  {t.seatsOption(n)}
                </option>
              ))}
            </select>
          </div>
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
