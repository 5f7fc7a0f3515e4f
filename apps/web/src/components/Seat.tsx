import type { TableView } from '@dominoes/protocol';
import { useI18n } from '../i18n';
import { endsText, passEnds, seatName, type SeatView, type Place } from '../game';
import { TileImage } from '../board/TileSvg';
import { Countdown } from './Countdown';
import { Avatar } from './Avatar';
import { SeatReaction } from '../chat/ChatPanel';

/** The seat's latest move of this round, if it came after its previous turn (a bubble beside the seat). */
function lastMove(game: SeatView, seat: number) {
  const ends = passEnds(game);
  for (let i = game.log.length - 1; i >= Math.max(0, game.log.length - game.seats); i--) {
    const entry = game.log[i];
    if (entry && entry.seat === seat) return { entry, ends: ends.get(i) };
  }
  return null;
}

export function Seat({
  view,
  game,
  seat,
  place,
}: {
  view: TableView;
  game: SeatView;
  seat: number;
  place: Place;
}) {
  const { t, dir } = useI18n();
  const info = view.seats[seat];
  const name = seatName(t, view, seat);
  const count = game.handCounts[seat] ?? 0;
  const side = game.sideOfSeat[seat] ?? seat;
  const partnership = view.variant === 'partnership';
  const team = partnership ? t.team(side) : '';
  const connected = info?.connected ?? false;
  const clock = view.clock;
  const isTurn = game.phase === 'playing' && game.turn === seat;
  const move = game.phase === 'playing' ? lastMove(game, seat) : null;
  const status = connected ? t.connected : t.disconnected;
  const label = t.seatLabel(
    `${name}${seat === view.you.seat ? ` (${t.you})` : ''}${view.hostSeat === seat ? `, ${t.host}` : ''}`,
    partnership ? team : t.seatN(seat + 1),
    t.tilesInHand(count),
    status,
  );

  return (
    <section
      dir={dir}
      className={`seat place-${place}${isTurn ? ' turn' : ''}${connected ? '' : ' offline'} side-${partnership ? side : seat}`}
      aria-label={label}
      data-testid={`seat-${place}`}
      data-seat={seat}
      data-connected={connected}
      data-tiles={count}
    >
      <div className="seat-head">
        <span className="avatar-wrap">
          <Avatar name={name} size="sm" />
          <span className={connected ? 'dot on' : 'dot off'} aria-hidden="true" />
        </span>
        <span className="seat-name" title={name} data-testid="seat-name">
          {name}
        </span>
        <SeatReaction seat={seat} />
        {view.hostSeat === seat && (
          <span className="badge host" title={t.host} aria-hidden="true">
            ★
          </span>
        )}
        {isTurn && clock?.kind === 'turn' && clock.seat === seat && (
          <Countdown deadline={clock.deadline} label={t.turnOf(name)} compact />
        )}
      </div>
      <div className="seat-meta" aria-hidden="true">
        {partnership && <span className={`team-tag team-${side}`}>{team}</span>}
        <span className="count">
          <span className="backs">
            {Array.from({ length: Math.min(count, 7) }, (_, i) => (
              <span key={i} className="back" />
            ))}
          </span>
          <span className="count-text">{t.tilesInHand(count)}</span>
        </span>
      </div>
      {move && (
        <div className={`bubble by-${move.entry.by}`} data-testid="seat-move" aria-hidden="true">
          {move.entry.by === 'deadline' && (
            <span className="clock-mark" title={t.byTable}>
              ⏱
            </span>
          )}
          {move.entry.type === 'play' ? (
            <>
              <span>{t.playedShort}</span>
              <TileImage tile={move.entry.tile} horizontal className="mini-tile" />
            </>
          ) : move.entry.type === 'pass' ? (
            <span>{t.passedShort(endsText(t, move.ends ?? []))}</span>
          ) : (
            <span>{t.drewShort}</span>
          )}
        </div>
      )}
    </section>
  );
}
