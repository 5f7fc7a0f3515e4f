/**
 * The web page in a real browser (Debian's chromium, driven by playwright-core), against the whole
 * system started as processes. Players act only through the page: clicks, taps, the keyboard and
 * drags. Screenshots go to test-artifacts/screenshots/<scenario>-<step>-<viewport>.png.
 */
import { TestSystem } from '../../../e2e/src/system';
import { galleryPage, largestRound, roundStates, tableView, wholeMatch } from './gallery';
import { seatView, type MatchState, type SeatView } from '@dominoes/rules';
import { avatarOf, newlyDrawn, sameEndPlay } from '../src/feel';
import {
  BrowserPlayer,
  DESKTOP,
  PHONE,
  key,
  layoutProblems,
  sleep,
  until,
  type Method,
  type Viewport,
} from './browser-players';
import { expectShotsLaidOut, suiteChromium } from './support/browser-suite';

const TURN_MS = 8_000;
const BREAK_MS = 12_000;

const suite = suiteChromium();

/** Screenshots every player (both viewports) and checks that nothing overflows or overlaps. */
const snapshot = (players: BrowserPlayer[], scenario: string, step: string) =>
  expectShotsLaidOut(scenario, step, players);

class Table {
  readonly checks = {
    highlight: 0,
    passes: 0,
    keyboardPlays: 0,
    drags: 0,
    taps: 0,
    clicks: 0,
    choices: 0,
    draws: 0,
  };
  /** Announcements of passes seen in another player's live region. */
  readonly passTexts: string[] = [];
  private turns = 0;

  constructor(
    readonly scenario: string,
    readonly players: BrowserPlayer[],
  ) {}

  get host(): BrowserPlayer {
    return this.players[0]!;
  }

  /** The newest view any player has received. */
  latest(): BrowserPlayer {
    return this.players.reduce((a, b) => (b.version > a.version ? b : a));
  }

  bySeat(seat: number): BrowserPlayer {
    const p = this.players.find((x) => x.seat === seat);
    if (!p) throw new Error(`nobody at seat ${seat}`);
    return p;
  }

  /** The player to move, once every page shows the newest view; null outside play. */
  async toMove(): Promise<BrowserPlayer | null> {
    const game = this.latest().view?.game;
    if (!game || game.phase !== 'playing' || game.turn === null) return null;
    const p = this.bySeat(game.turn);
    if (p.view?.game?.turn !== game.turn || p.version < this.latest().version) return null;
    if (!(await p.synced())) return null;
    return p;
  }

  /** A play that leaves the next seat nothing to play (to see passes), else one with a choice of ends. */
  choosePlay(p: BrowserPlayer): { tile: readonly [number, number]; end: string | undefined; ends: number } {
    const game = p.view!.game!;
    const plays = game.legal.flatMap((a) => (a.type === 'play' ? [a] : []));
    const nextSeat = (p.seat + 1) % game.seats;
    const nextHand = this.players.find((x) => x.seat === nextSeat)?.view?.game?.hand ?? [];
    const endsFor = (k: string) => plays.filter((a) => key(a.tile) === k).length;
    const after = (tile: readonly [number, number], end: string | undefined): number[] => {
      if (game.board.ends.length === 0) return [tile[0], tile[1]];
      return game.board.ends.map((e) => (e.id === end ? (tile[0] === e.value ? tile[1] : tile[0]) : e.value));
    };
    const blocks = plays.find((a) => {
      const ends = after(a.tile, a.end);
      return !nextHand.some((t) => ends.includes(t[0]) || ends.includes(t[1]));
    });
    const choice =
      blocks ?? (this.turns % 2 === 0 ? plays.find((a) => endsFor(key(a.tile)) > 1) : undefined) ?? plays[0]!;
    return { tile: choice.tile, end: choice.end, ends: endsFor(key(choice.tile)) };
  }

  /** One turn of the player to move, through its page; returns false when nobody could move yet. */
  async step(options: { skip?: (p: BrowserPlayer) => boolean } = {}): Promise<boolean> {
    const p = await this.toMove();
    if (!p) return false;
    if (options.skip?.(p)) return false;
    const game = p.view!.game!;
    if (game.phase !== 'playing' || game.turn !== p.seat || game.legal.length === 0) {
      if (game.phase === 'playing' && game.turn === p.seat)
        console.log(`${p.name}: a view with no legal action`, p.version);
      return false;
    }
    // Too close to the deadline (a seat back from a reload may have had only a few seconds, P17):
    // let the table act rather than race it.
    const clock = p.view!.clock;
    if (clock?.kind === 'turn' && clock.deadline - Date.now() < 2_000) return false;
    // The page highlights exactly the tiles the server listed as legal, and dims the others.
    expect({ seat: p.seat, shown: await p.domPlayable() }).toEqual({ seat: p.seat, shown: p.legalTiles() });
    this.checks.highlight += 1;
    const before = p.version;
    const canPass = game.legal.some((a) => a.type === 'pass');
    const canDraw = game.legal.some((a) => a.type === 'draw');
    const page = p.page;
    try {
      if (canPass) {
        // P9: the pass button is enabled exactly when the pass is forced.
        await p.press(page.getByTestId('pass'));
        this.checks.passes += 1;
      } else if (canDraw) {
        await p.press(page.getByTestId('draw'));
        this.checks.draws += 1;
      } else {
        expect(await page.getByTestId('pass').isDisabled()).toBe(true);
        await this.play(p, this.choosePlay(p));
      }
    } catch (error) {
      // On a loaded machine the table may have moved for this seat at its deadline meanwhile (the
      // tile or the choice is gone): that is the game going on, not a failure of the page.
      await page.mouse.up().catch(() => undefined);
      if (p.view?.game?.turn === game.turn && p.view.game.log.length === game.log.length) throw error;
      return true;
    }
    this.turns += 1;
    await until(
      `${p.name}'s move to be applied`,
      async () => p.version > before || p.view?.game?.turn !== game.turn,
      15_000,
    );
    return true;
  }

  private async play(
    p: BrowserPlayer,
    play: { tile: readonly [number, number]; end: string | undefined; ends: number },
  ) {
    const page = p.page;
    const k = key(play.tile);
    const tile = page.locator(`[data-testid="hand-tile"][data-tile="${k}"]`);
    const choice = page.locator(`[data-testid="end-choice"] button[data-end="${play.end}"]`);
    // Both ends showing the same number: the page plays without asking (sameEndPlay, from legal).
    const multi = play.ends > 1 && sameEndPlay(p.view!.game!, k) === null;
    if (multi) this.checks.choices += 1;
    switch (p.method) {
      case 'click':
        await tile.click({ timeout: 5_000 });
        if (multi) await choice.click({ timeout: 5_000 });
        this.checks.clicks += 1;
        break;
      case 'tap':
        await tile.tap({ timeout: 5_000 });
        if (multi) await choice.tap({ timeout: 5_000 });
        this.checks.taps += 1;
        break;
      case 'keyboard': {
        // Tab into the hand (one tab stop), arrows to the tile, Enter; Tab to the end, Enter.
        await p.tabTo(page.locator('[data-testid="hand-tile"][tabindex="0"]'));
        // During the turn the arrows move among the playable tiles only.
        const keys = await page.$$eval('[data-testid="hand-tile"][data-playable="true"]', (els) =>
          els.map((e) => e.getAttribute('data-tile')),
        );
        const from = await page.evaluate(() => document.activeElement?.getAttribute('data-tile') ?? '');
        let delta = keys.indexOf(k) - keys.indexOf(from);
        while (delta !== 0) {
          await page.keyboard.press(delta > 0 ? 'ArrowRight' : 'ArrowLeft');
          delta += delta > 0 ? -1 : 1;
        }
        expect(await page.evaluate(() => document.activeElement?.getAttribute('data-tile'))).toBe(k);
        await page.keyboard.press('Enter');
        if (multi) {
          await page.getByTestId('end-choice').waitFor({ timeout: 5_000 });
          await p.tabTo(choice);
          await page.keyboard.press('Enter');
        }
        this.checks.keyboardPlays += 1;
        break;
      }
      case 'drag': {
        const box = (await tile.boundingBox({ timeout: 5_000 }))!;
        const board = (await page.getByTestId('board').boundingBox())!;
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await page.mouse.down();
        await page.mouse.move(board.x + board.width / 2, board.y + board.height / 2, { steps: 8 });
        if (multi) {
          // While dragging, the ends the tile fits are marked on the board: drop on the chosen one.
          const marker = page.locator(`[data-end-id="${play.end}"]`);
          const m = await marker.boundingBox({ timeout: 5_000 }).catch(async (error: unknown) => {
            await p.shot(this.scenario, 'debug-drag');
            const state = {
              turn: p.view?.game?.turn,
              seat: p.seat,
              ghost: await page.locator('.drag-ghost').count(),
              markers: await page.locator('[data-end-id]').count(),
            };
            throw new Error(
              `no marker for ${play.end} while dragging ${k}: ${JSON.stringify(state)}: ${String(error)}`,
            );
          });
          if (!m) throw new Error('no marker box');
          await page.mouse.move(m.x + m.width / 2, m.y + m.height / 2, { steps: 4 });
        }
        await page.mouse.up();
        this.checks.drags += 1;
        break;
      }
    }
  }

  /** Plays until `done`, with a guard on time. */
  async playUntil(
    done: () => boolean | Promise<boolean>,
    timeoutMs: number,
    options: { skip?: (p: BrowserPlayer) => boolean } = {},
  ) {
    const started = Date.now();
    while (!(await done())) {
      if (Date.now() - started > timeoutMs)
        throw new Error(`${this.scenario}: not done within ${timeoutMs} ms`);
      const acted = await this.step(options);
      if (!acted) await sleep(120);
    }
  }

  async roundEnded(): Promise<boolean> {
    return this.host.view?.game?.phase === 'between-rounds' || this.host.view?.game?.phase === 'over';
  }
}

async function openPlayers(specs: { name: string; viewport: Viewport; method: Method; locale?: string }[]) {
  return Promise.all(
    specs.map((s) => BrowserPlayer.open(suite.browser, s.name, s.viewport, s.method, s.locale)),
  );
}

/** The end of a round on every page: all hands revealed (P12) and the score worked out. */
async function checkReveal(table: Table, partnership: boolean) {
  for (const p of table.players) {
    await until(
      `${p.name} sees the round result`,
      async () => (await p.page.getByTestId('round-result').isVisible()) && (await p.synced()),
    );
    const result = p.view!.game!.roundResult!;
    const hands = p.page.getByTestId('revealed-hand');
    expect(await hands.count()).toBe(table.players.length);
    for (let seat = 0; seat < table.players.length; seat++) {
      const shown = p.page.locator(`[data-testid="revealed-hand"][data-seat="${seat}"]`);
      expect(Number(await shown.getAttribute('data-count'))).toBe(result.finalHands[seat]!.length);
      expect(await shown.locator('.reveal-tile').count()).toBe(result.finalHands[seat]!.length);
    }
    const explain = (await p.page.getByTestId('result-explain').textContent()) ?? '';
    const headline = (await p.page.getByTestId('result-headline').textContent()) ?? '';
    expect(explain.length).toBeGreaterThan(10);
    expect(headline.length).toBeGreaterThan(5);
    if (partnership && (await p.page.evaluate(() => document.documentElement.lang)) === 'en') {
      expect(headline).toMatch(result.blocked ? /blocked/ : /dominoed/);
      expect(explain).toMatch(new RegExp(`Team A: ${result.sidePips[0]} pips left`));
      expect(explain).toMatch(new RegExp(`Team B: ${result.sidePips[1]} pips left`));
      expect(explain).toContain(`${result.points}`);
    }
  }
}

describe('the web page in Chromium', () => {
  it('partnership: 4 players open, join by link and play through the UI alone until the next round; countdown, highlights, a pass announcement, the reveal, the table’s deadline move, a reload and a gateway restart', async () => {
    const system = await TestSystem.start('web-partnership', {
      turnMs: TURN_MS,
      disconnectedTurnMs: 3_000,
      breakMs: BREAK_MS,
    });
    const [ana, boris, cem, dara] = await openPlayers([
      { name: 'Ana', viewport: DESKTOP, method: 'click' },
      { name: 'Boris', viewport: PHONE, method: 'tap' },
      { name: 'Cem', viewport: DESKTOP, method: 'keyboard' },
      { name: 'Dara', viewport: DESKTOP, method: 'drag' },
    ]);
    const players = [ana!, boris!, cem!, dara!];
    const S = 'partnership';
    try {
      // Lobby: a first visit asks for a name.
      await Promise.all([ana!.page.goto(system.httpUrl), boris!.page.goto(system.httpUrl)]);
      await ana!.page.getByTestId('name-form').waitFor();
      await boris!.page.getByTestId('name-form').waitFor();
      await snapshot([ana!, boris!], S, '01-name');
      await ana!.enterName();
      await ana!.page.getByTestId('open-form').waitFor();
      await boris!.enterName();
      await boris!.page.getByTestId('open-form').waitFor();
      await snapshot([ana!, boris!], S, '02-lobby');
      // The Join card's hint is about joining; the lobby shows the player's avatar.
      expect(await ana!.page.getByTestId('join-form').locator('.hint').textContent()).toMatch(
        /Paste the link you were sent, or type the table’s 12-character code/,
      );
      expect(await ana!.page.locator('.you-card [data-testid="avatar"]').textContent()).toBe('A');

      // The host opens a partnership table with target 150.
      await ana!.page.locator('input[name="variant"][value="partnership"]').check();
      await ana!.page.getByTestId('target-select').selectOption('150');
      await ana!.page.getByTestId('open-table').click();
      const link = await until(
        'the table link',
        async () => (await ana!.page.getByTestId('table-link').inputValue()) || null,
      );
      expect(link).toMatch(/\/t\/[A-Z0-9]{12}$/);

      // The others join through the link.
      await boris!.page.goto(link);
      await cem!.page.goto(link);
      await cem!.enterName();
      await until('3 seated', async () => ana!.view?.seats.filter(Boolean).length === 3);
      const waiting = await ana!.page.getByTestId('seats').locator('li').allTextContents();
      expect(waiting[0]).toMatch(/Ana.*Host/);
      expect(waiting[1]).toMatch(/Boris/);
      expect(waiting[2]).toMatch(/Cem/);
      expect(waiting[3]).toMatch(/Empty/);
      expect(
        await ana!.page.getByTestId('seats').locator('[data-testid="avatar"]').allTextContents(),
      ).toEqual(['A', 'B', 'C']);
      await until('Boris sees the waiting room', async () => boris!.page.getByTestId('waiting').isVisible());
      await snapshot([ana!, boris!], S, '03-waiting');
      await dara!.page.goto(link);
      await dara!.enterName();

      // The match starts by itself with the 4th player; partners sit opposite.
      for (const p of players) await p.page.getByTestId('game').waitFor({ timeout: 20_000 });
      expect(players.map((p) => p.seat)).toEqual([0, 1, 2, 3]);
      expect(await ana!.page.getByTestId('seat-top').getAttribute('data-seat')).toBe('2');
      expect(await boris!.page.getByTestId('seat-top').getAttribute('data-seat')).toBe('3');
      const table = new Table(S, players);
      await until('every page shows the newest view', async () =>
        (await Promise.all(players.map((p) => p.synced()))).every(Boolean),
      );
      await snapshot([ana!, boris!], S, '04-start');

      // Auto-pass is a switch, operable from the keyboard.
      await cem!.tabTo(cem!.page.getByTestId('autopass'));
      await cem!.page.keyboard.press('Space');
      await until(
        'auto-pass on',
        async () => (await cem!.page.getByTestId('autopass').getAttribute('aria-checked')) === 'true',
      );
      await cem!.tabTo(cem!.page.getByTestId('autopass'));
      await cem!.page.keyboard.press('Space');
      await until(
        'auto-pass off',
        async () => (await cem!.page.getByTestId('autopass').getAttribute('aria-checked')) === 'false',
      );

      // A few moves, then Cem lets his clock run out: the countdown runs down on every page and
      // the table moves for him, marked as the table's move.
      await table.playUntil(async () => (ana!.view?.game?.log.length ?? 0) >= 3, 60_000);
      await table.playUntil(
        async () => ana!.view?.game?.turn === cem!.seat && (await cem!.synced()),
        60_000,
        {
          skip: (p) => p === cem,
        },
      );
      const first = Number(await cem!.page.getByTestId('countdown').getAttribute('data-remaining-ms'));
      const firstAna = Number(
        await ana!.page.getByTestId('seat-countdown').getAttribute('data-remaining-ms'),
      );
      await sleep(1_500);
      const second = Number(await cem!.page.getByTestId('countdown').getAttribute('data-remaining-ms'));
      const secondAna = Number(
        await ana!.page.getByTestId('seat-countdown').getAttribute('data-remaining-ms'),
      );
      expect(await cem!.page.getByTestId('countdown').isVisible()).toBe(true);
      expect(first).toBeLessThanOrEqual(TURN_MS);
      expect(second).toBeLessThan(first - 1_000);
      expect(secondAna).toBeLessThan(firstAna - 1_000);
      expect(Number(await cem!.page.getByTestId('countdown').textContent())).toBe(Math.ceil(second / 1000));
      await snapshot([ana!, boris!], S, '05-countdown');
      await until(
        'the table’s move at the deadline',
        async () => (await ana!.page.locator('[data-testid="move"][data-by="deadline"]').count()) > 0,
        TURN_MS + 8_000,
      );
      expect(
        await ana!.page.locator('[data-testid="move"][data-by="deadline"]').first().textContent(),
      ).toMatch(/Cem .*played by the table: time ran out/);
      await until('the deadline move announced', async () =>
        /Time ran out: the table acted\. Cem/.test(await ana!.liveText()),
      );
      await snapshot([ana!, boris!], S, '06-deadline-move');

      // A reload brings the player back to the same seat, with the current view.
      const daraHand = dara!.view!.game!.hand.length;
      await dara!.page.reload();
      await dara!.page.getByTestId('game').waitFor({ timeout: 20_000 });
      await until(
        'Dara online again',
        async () => (await dara!.page.getByTestId('connection').getAttribute('data-status')) === 'online',
      );
      expect(await dara!.page.getByTestId('game').getAttribute('data-seat')).toBe('3');
      expect(await dara!.page.getByTestId('hand-tile').count()).toBe(dara!.view!.game!.hand.length);
      expect(dara!.view!.game!.hand.length).toBeLessThanOrEqual(daraHand);
      await until(
        'Ana sees Dara connected',
        async () =>
          (await ana!.page.locator('.seat[data-seat="3"]').getAttribute('data-connected')) === 'true',
      );

      // Play the round out; passes are announced with their two end numbers (P10).
      const passSeen = async () => {
        const text = await ana!.liveText();
        const match = /(\w+) passed on (\d) and (\d)/.exec(text);
        if (match && !table.passTexts.includes(match[0])) table.passTexts.push(match[0]);
        return table.passTexts.length > 0;
      };
      await table.playUntil(async () => (await passSeen()) || (await table.roundEnded()), 120_000);
      if (table.passTexts.length > 0) {
        const passes = ana!.view!.game!.passes;
        const last = passes[passes.length - 1]!;
        expect(table.passTexts.join(' ')).toContain(`passed on ${last.ends[0]} and ${last.ends[1]}`);
        await snapshot([ana!, boris!], S, '07-pass');
      }
      await table.playUntil(() => table.roundEnded(), 120_000);

      // The end of the round: every hand revealed, the score explained, the break counting down.
      await checkReveal(table, true);
      expect(await ana!.page.getByTestId('break').isVisible()).toBe(true);
      expect(await boris!.page.getByTestId('start-now').count()).toBe(0);
      await snapshot([ana!, boris!], S, '08-round-end');
      // The same in Arabic, right to left, on the phone.
      await boris!.page.getByTestId('lang').selectOption('ar');
      expect(
        await boris!.page.evaluate(() => [document.documentElement.dir, document.documentElement.lang]),
      ).toEqual(['rtl', 'ar']);
      await boris!.shot(S, '09-round-end-arabic');
      expect(await layoutProblems(boris!.page)).toEqual([]);
      await boris!.page.getByTestId('lang').selectOption('en');

      // The host starts the next round at once.
      const round = ana!.view!.game!.roundNumber;
      // (The break is 12 s here: the checks above take a few seconds.)
      expect(ana!.view!.game!.phase).not.toBe('playing');
      if (ana!.view!.game!.phase === 'between-rounds') await ana!.page.getByTestId('start-now').click();
      else await ana!.page.getByTestId('new-match').click();
      await until('the next round on every page', async () =>
        players.every(
          (p) =>
            p.view?.game?.phase === 'playing' && (p.view.game.roundNumber > round || p.view.matchNumber > 1),
        ),
      );
      for (const p of players)
        await until(
          `${p.name} shows the next round`,
          async () => (await p.page.getByTestId('game').getAttribute('data-phase')) === 'playing',
        );
      await snapshot([ana!, boris!], S, '10-next-round');

      // Losing the network (the gateway goes away): an honest "reconnecting…", then the same seats.
      await system.kill('gateway');
      for (const p of players)
        await until(
          `${p.name} says reconnecting`,
          async () => (await p.page.getByTestId('connection').getAttribute('data-status')) === 'reconnecting',
        );
      expect(await boris!.page.getByTestId('connection').textContent()).toMatch(/Reconnecting/);
      await snapshot([ana!, boris!], S, '11-reconnecting');
      await system.startService('gateway');
      for (const p of players) {
        await until(
          `${p.name} back online`,
          async () => (await p.page.getByTestId('connection').getAttribute('data-status')) === 'online',
          30_000,
        );
        await until(`${p.name} back at the table`, async () => p.page.getByTestId('game').isVisible());
      }
      expect(
        await Promise.all(players.map((p) => p.page.getByTestId('game').getAttribute('data-seat'))),
      ).toEqual(['0', '1', '2', '3']);

      // If no pass came yet, keep playing rounds until one does (the break may also end by itself).
      await table.playUntil(async () => {
        await passSeen();
        if (table.passTexts.length > 0 && (ana!.view?.game?.log.length ?? 0) > 6) return true;
        if (ana!.view?.game?.phase === 'between-rounds' || ana!.view?.game?.phase === 'over') {
          await sleep(BREAK_MS + 500);
          if (ana!.view?.game?.phase === 'over') await ana!.page.getByTestId('new-match').click();
        }
        return false;
      }, 240_000);
      expect(table.passTexts.length).toBeGreaterThan(0);
      await snapshot([ana!, boris!], S, '12-later');

      expect(table.checks.highlight).toBeGreaterThan(10);
      expect(
        table.checks.keyboardPlays + table.checks.drags + table.checks.taps + table.checks.clicks,
      ).toBeGreaterThan(8);
      for (const p of players)
        expect({ player: p.name, errors: p.errors }).toEqual({ player: p.name, errors: [] });
      console.log(`${S}: ${JSON.stringify(table.checks)}; passes announced: ${table.passTexts.join(' | ')}`);
    } finally {
      await Promise.all(players.map((p) => p.close()));
      await system.stop();
    }
  }, 480_000);

  it('five-tile: 3 players (Greek, Bulgarian, Arabic browsers) join by code and play a round to its end through the UI', async () => {
    const system = await TestSystem.start('web-five-tile', {
      turnMs: TURN_MS,
      disconnectedTurnMs: 3_000,
      breakMs: 30_000,
    });
    const [eleni, boyan, amal] = await openPlayers([
      { name: 'Eleni', viewport: DESKTOP, method: 'drag', locale: 'el-GR' },
      { name: 'Boyan', viewport: PHONE, method: 'tap', locale: 'bg-BG' },
      { name: 'Amal', viewport: DESKTOP, method: 'click', locale: 'ar-EG' },
    ]);
    const players = [eleni!, boyan!, amal!];
    const S = 'five-tile';
    try {
      for (const p of players) {
        await p.page.goto(system.httpUrl);
        await p.enterName();
        await p.page.getByTestId('open-form').waitFor();
      }
      // The page speaks the browser's language; Arabic is right to left.
      expect(await eleni!.page.evaluate(() => document.documentElement.lang)).toBe('el');
      expect(await boyan!.page.evaluate(() => document.documentElement.lang)).toBe('bg');
      expect(
        await amal!.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]),
      ).toEqual(['ar', 'rtl']);
      await snapshot([boyan!, amal!], S, '01-lobby');

      // The rules of the five-tile game, in Bulgarian, on the phone.
      await boyan!.page.locator('header button').first().tap();
      await boyan!.page.getByTestId('rules').waitFor();
      await boyan!.page.getByRole('tab').nth(2).tap();
      expect(await boyan!.page.locator('#rules-panel').textContent()).toMatch(/двойн/);
      await boyan!.shot(S, '02-rules-bulgarian');
      await boyan!.page.keyboard.press('Escape');

      await eleni!.page.locator('input[name="variant"][value="five-tile"]').check();
      await eleni!.page.getByTestId('seats-select').selectOption('3');
      await eleni!.page.getByTestId('open-table').click();
      const code = await until(
        'the code',
        async () => (await eleni!.page.getByTestId('table-code').textContent()) || null,
      );
      expect(code).toMatch(/^[A-Z0-9]{12}$/);
      // Joining by code, typed in lower case.
      for (const p of [boyan!, amal!]) {
        await p.page.getByTestId('join-code').fill(code.toLowerCase());
        await p.press(p.page.getByTestId('join-table'));
      }
      for (const p of players) await p.page.getByTestId('game').waitFor({ timeout: 20_000 });
      expect(players.map((p) => p.seat)).toEqual([0, 1, 2]);
      const table = new Table(S, players);
      await until('every page shows the newest view', async () =>
        (await Promise.all(players.map((p) => p.synced()))).every(Boolean),
      );
      await snapshot(players, S, '03-start');

      // F2: the opener must lay the highest double: exactly that tile is highlighted.
      const opener = await until('the opener', () => table.toMove());
      expect(opener.legalTiles()).toHaveLength(1);
      expect(opener.legalTiles()[0]).toMatch(/^(\d)-\1$/);

      let midShot = false;
      await table.playUntil(async () => {
        if (!midShot && (eleni!.view?.game?.board.placements.length ?? 0) >= 7) {
          midShot = true;
          await until('synced', async () =>
            (await Promise.all(players.map((p) => p.synced()))).every(Boolean),
          );
          await snapshot(players, S, '04-mid');
        }
        return table.roundEnded();
      }, 200_000);
      await checkReveal(table, false);
      await snapshot(players, S, '05-round-end');
      // The crossed doubles were drawn across with branches: every placement is on the board.
      const placements = eleni!.view!.game!.board.placements.length;
      expect(Number(await eleni!.page.locator('.board-svg').getAttribute('data-tiles'))).toBe(placements);
      await eleni!.page.getByRole('button', { name: 'Δείξε το τραπέζι' }).click();
      await eleni!.shot(S, '06-final-board');
      expect(await layoutProblems(eleni!.page)).toEqual([]);
      for (const p of players)
        expect({ player: p.name, errors: p.errors }).toEqual({ player: p.name, errors: [] });
      console.log(`${S}: ${JSON.stringify(table.checks)}`);
    } finally {
      await Promise.all(players.map((p) => p.close()));
      await system.stop();
    }
  }, 300_000);

  it('D9/F4: the board stays readable from the first tile to the last, on a phone and a desktop (the longest chain and the most crowded cross of 150 random rounds); a big hand; the end of a match', async () => {
    type Case = { name: string; names: string[]; stages: MatchState[] };
    const cases: Case[] = [];
    const threeStages = (states: MatchState[]) => {
      const playing = states.filter((m) => m.phase === 'playing' && m.round!.board.placements.length > 0);
      return [playing[0]!, playing[Math.floor(playing.length / 2)]!, playing.at(-1)!];
    };
    cases.push({
      name: 'partnership',
      names: ['Ana', 'Boris', 'Cem', 'Dara'],
      stages: threeStages(largestRound('partnership', 4, 150, (m) => m.round!.board.placements.length)),
    });
    const crossedScore = (m: MatchState) =>
      m.round!.board.placements.length + 3 * m.round!.board.placements.filter((p) => p.crossed).length;
    cases.push({
      name: 'five-tile',
      names: ['Ana', 'Boris'],
      stages: threeStages(largestRound('five-tile', 2, 150, crossedScore)),
    });
    // A draw game for two at the moment a hand is largest (drawing from the boneyard).
    let biggest: MatchState | null = null;
    for (let seed = 1; seed <= 60; seed++) {
      for (const m of roundStates('draw', 2, seed)) {
        if (
          m.phase === 'playing' &&
          (!biggest || m.round!.hands[0]!.length > biggest.round!.hands[0]!.length)
        )
          biggest = m;
      }
    }
    cases.push({ name: 'draw-big-hand', names: ['Ana', 'Boris'], stages: [biggest!] });
    // A whole partnership match to 50: the winner, the final scores, the host's "new match".
    cases.push({
      name: 'match-over',
      names: ['Ana', 'Boris', 'Cem', 'Dara'],
      stages: [wholeMatch('partnership', 4, 50, 7)],
    });

    for (const { name, names, stages } of cases) {
      for (const viewport of [PHONE, DESKTOP]) {
        const p = await BrowserPlayer.open(suite.browser, 'Ana', viewport, 'click');
        try {
          const served = await galleryPage(p.page, tableView(stages[0]!, 0, names));
          await p.page.getByTestId('game').waitFor();
          for (const [i, stage] of stages.entries()) {
            const version = served.push(tableView(stage, 0, names));
            await until(
              'the view shown',
              async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
            );
            const count = stage.round!.board.placements.length;
            if (stage.phase === 'over') {
              await p.page.getByTestId('match-winner').waitFor();
              expect(await p.page.getByTestId('match-winner').textContent()).toMatch(/wins the match/);
              expect(await p.page.getByTestId('new-match').isVisible()).toBe(true);
              expect(await p.page.getByTestId('scores').locator('li').count()).toBe(2);
              expect(await p.page.getByTestId('revealed-hand').count()).toBe(4);
            } else {
              await until(
                'the board drawn',
                async () => Number(await p.page.locator('.board-svg').getAttribute('data-tiles')) === count,
              );
              expect(await p.page.getByTestId('hand-tile').count()).toBe(stage.round!.hands[0]!.length);
            }
            await p.shot(`gallery-${name}`, `${i + 1}-${count}-tiles`);
            expect({ name, count, problems: await layoutProblems(p.page) }).toEqual({
              name,
              count,
              problems: [],
            });
          }
          expect(p.errors).toEqual([]);
        } finally {
          await p.close();
        }
      }
    }
  }, 180_000);

  it('feeling the game and the review’s fixes (mocked socket): avatars, the phone’s score strip, sounds and the remembered mute, the sorted hand, the same-end play, the end choice keeps the board, focus only on playable tiles, a new tile marked, the disconnected-turn notice, nothing over the top seat’s name, “Match over”', async () => {
    const names = ['Ana', 'Boris', 'Cem', 'Dara'];
    const S = 'feel';
    type Found = { match: MatchState; game: SeatView; next: MatchState | undefined };
    /** The first state of random rounds where seat 0 is to move and `wanted` holds. */
    const find = (
      variant: 'partnership' | 'draw',
      seats: number,
      wanted: (game: SeatView, match: MatchState) => boolean,
    ): Found => {
      for (let seed = 1; seed <= 400; seed++) {
        const states = roundStates(variant, seats, seed);
        for (const [i, match] of states.entries()) {
          if (match.phase !== 'playing' || match.round!.turn !== 0) continue;
          const game = seatView(match, 0);
          if (wanted(game, match)) return { match, game, next: states[i + 1] };
        }
      }
      throw new Error('no such state');
    };
    const plays = (game: SeatView) => game.legal.flatMap((a) => (a.type === 'play' ? [a] : []));
    const tilesOnTwoEnds = (game: SeatView) =>
      [...new Set(plays(game).map((a) => key(a.tile)))].filter(
        (k) => plays(game).filter((a) => key(a.tile) === k).length === 2,
      );
    // Both ends show one number and a tile fits both: played at once.
    const same = find('partnership', 4, (g) => tilesOnTwoEnds(g).some((k) => sameEndPlay(g, k) !== null));
    // Two different numbers, a tile fitting both, and unplayable tiles in the hand.
    const choose = find(
      'partnership',
      4,
      (g) =>
        tilesOnTwoEnds(g).some((k) => sameEndPlay(g, k) === null) &&
        g.hand.length - new Set(plays(g).map((a) => key(a.tile))).size >= 2,
    );
    // Seat 0 has just drawn tiles in a draw game.
    const drew = find('draw', 2, (g) => newlyDrawn(g, 0).size > 0);
    const over = wholeMatch('partnership', 4, 50, 7);

    for (const viewport of [PHONE, DESKTOP]) {
      const p = await BrowserPlayer.open(suite.browser, 'Ana', viewport, 'click');
      const phone = viewport === PHONE;
      const boxOf = async (selector: string) => (await p.page.locator(selector).first().boundingBox())!;
      const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
        Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x) > 0 &&
        Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y) > 0;
      const check = async (step: string) => {
        await p.shot(S, step);
        expect({ step, problems: await layoutProblems(p.page) }).toEqual({ step, problems: [] });
      };
      try {
        const first = tableView(same.match, 0, names);
        const served = await galleryPage(p.page, first);
        await p.page.getByTestId('game').waitFor();

        // Avatars: initials and a colour from the name, on every seat and on mine.
        for (const seat of [1, 2, 3]) {
          const avatar = p.page.locator(`.seat[data-seat="${seat}"] [data-testid="avatar"]`);
          expect(await avatar.textContent()).toBe(avatarOf(names[seat]!).initials);
          expect(Number(await avatar.getAttribute('data-hue'))).toBe(avatarOf(names[seat]!).hue);
          const background = await avatar.evaluate((el) => getComputedStyle(el).backgroundColor);
          const expected = await p.page.evaluate((color) => {
            const probe = document.createElement('span');
            probe.style.background = color;
            document.body.append(probe);
            const out = getComputedStyle(probe).backgroundColor;
            probe.remove();
            return out;
          }, avatarOf(names[seat]!).color);
          expect(background).toBe(expected);
        }
        expect(await p.page.locator('.my-area [data-testid="avatar"]').textContent()).toBe('A');

        // The compact score strip: on the phone, on screen with the scores; on a desktop the scoreboard.
        const strip = p.page.getByTestId('score-strip');
        if (phone) {
          expect(await strip.isVisible()).toBe(true);
          const box = (await strip.boundingBox())!;
          expect(box.y + box.height).toBeLessThanOrEqual(viewport.height);
          expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
          expect(
            await strip
              .locator('li[data-side]')
              .evaluateAll((els) => els.map((e) => e.getAttribute('data-score'))),
          ).toEqual(first.game!.scores.map(String));
          expect(await strip.textContent()).toMatch(/Team A ?\d+.*Team B ?\d+/);
        } else {
          expect(await strip.isVisible()).toBe(false);
          expect(await p.page.getByTestId('scoreboard').isVisible()).toBe(true);
        }
        await check(`01-start`);

        // Sounds: the mute switch is remembered over a reload; muted, nothing sounds.
        const sound = p.page.getByTestId('sound');
        const played = async () =>
          Number((await p.page.evaluate(() => document.documentElement.dataset.sounds)) ?? 0);
        expect(await sound.getAttribute('aria-checked')).toBe('true');
        await sound.click();
        expect(await sound.getAttribute('aria-checked')).toBe('false');
        expect(await p.page.evaluate(() => localStorage.getItem('dominoes.sound'))).toBe('off');
        await p.page.reload();
        await p.page.getByTestId('game').waitFor();
        expect(await p.page.getByTestId('sound').getAttribute('aria-checked')).toBe('false');
        await p.page.getByTestId('sound').click(); // a user gesture: from now on the page may sound
        expect(await p.page.evaluate(() => localStorage.getItem('dominoes.sound'))).toBe('on');
        // Another seat's play in the same round: a tile placed sounds.
        const states = roundStates('partnership', 4, 1);
        const k0 = states.findIndex(
          (m, i) => i > 0 && m.round!.log.at(-1)?.type === 'play' && m.phase === 'playing',
        );
        let version = served.push(tableView(states[k0 - 1]!, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        const before = await played();
        version = served.push(tableView(states[k0]!, 0, names));
        await until('a sound for the tile placed', async () => (await played()) > before);
        // The tile just laid moves onto the board from its player's side; the older ones stay put.
        const arriving = p.page.locator('.board-svg [data-placement].arrive');
        expect(await arriving.count()).toBe(1);
        expect(await arriving.getAttribute('data-placement')).toBe(
          String(states[k0]!.round!.board.placements.length - 1),
        );
        expect(await p.page.evaluate(() => document.documentElement.dataset.lastSound)).toMatch(/place|turn/);
        await p.page.getByTestId('sound').click();
        const mutedAt = await played();
        version = served.push(tableView(states[k0 + 1]!, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        await sleep(300);
        expect(await played()).toBe(mutedAt);

        // In a background tab, your turn makes the title blink and a phone vibrate (not when muted).
        await p.page.getByTestId('sound').click();
        await p.page.evaluate(() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
          const calls: unknown[] = [];
          (window as unknown as { vibrations: unknown[] }).vibrations = calls;
          Object.defineProperty(navigator, 'vibrate', {
            configurable: true,
            value: (pattern: unknown) => calls.push(pattern) > 0,
          });
        });
        const j = states.findIndex(
          (m, i) =>
            i > k0 + 1 && m.phase === 'playing' && m.round!.turn === 0 && states[i - 1]!.round!.turn !== 0,
        );
        version = served.push(tableView(states[j - 1]!, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        served.push(tableView(states[j]!, 0, names));
        await until(
          'the title blinks',
          async () => (await p.page.title()).startsWith('🔔 Your turn!'),
          5_000,
        );
        expect(
          await p.page.evaluate(() => (window as unknown as { vibrations: unknown[] }).vibrations.length),
        ).toBe(1);
        await p.page.evaluate(() => {
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => false });
        });
        await until('the title still', async () => (await p.page.title()).startsWith('● Your turn'), 5_000);
        await p.page.getByTestId('sound').click();

        // The same-end play: both ends show one number, the tile goes down without a question.
        version = served.push(tableView(same.match, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        const sameKey = tilesOnTwoEnds(same.game).find((k) => sameEndPlay(same.game, k) !== null)!;
        const sent = served.sent.length;
        await p.page.locator(`[data-testid="hand-tile"][data-tile="${sameKey}"]`).click();
        await until('the play sent', async () => served.sent.slice(sent).find((f) => f.type === 'play'));
        const frame = served.sent.slice(sent).find((f) => f.type === 'play')!;
        expect(frame.end).toBe(sameEndPlay(same.game, sameKey));
        expect(key(frame.tile as number[])).toBe(sameKey);
        expect(await p.page.getByTestId('end-choice').count()).toBe(0);

        // Two different numbers: the choice appears over the status bar; the board keeps its size;
        // the markers are dashed slots "#1", "#2", not round dots.
        version = served.push(tableView(choose.match, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        const chooseKey = tilesOnTwoEnds(choose.game).find((k) => sameEndPlay(choose.game, k) === null)!;
        const board = await boxOf('[data-testid="board"]');
        await p.page.locator(`[data-testid="hand-tile"][data-tile="${chooseKey}"]`).click();
        await p.page.getByTestId('end-choice').waitFor();
        const boardWithChoice = await boxOf('[data-testid="board"]');
        expect(Math.abs(boardWithChoice.height - board.height)).toBeLessThan(1);
        expect(Math.abs(boardWithChoice.width - board.width)).toBeLessThan(1);
        expect(await p.page.locator('.end-marker circle').count()).toBe(0);
        expect(await p.page.locator('.end-marker .end-slot').count()).toBe(2);
        expect(await p.page.locator('.end-marker text').allTextContents()).toEqual(['#1', '#2']);
        await check('02-end-choice');
        await p.page.keyboard.press('Escape');
        await until('the choice closed', async () => (await p.page.getByTestId('end-choice').count()) === 0);

        // The keyboard: during the turn the focus only ever rests on playable tiles.
        await p.tabTo(p.page.locator('[data-testid="hand-tile"][tabindex="0"]'));
        const focused = () =>
          p.page.evaluate(() => document.activeElement?.getAttribute('data-playable') ?? 'not a tile');
        for (const press of [
          'ArrowRight',
          'ArrowRight',
          'ArrowRight',
          'ArrowLeft',
          'End',
          'Home',
          'ArrowLeft',
          'ArrowDown',
        ]) {
          expect({ press, playable: await focused() }).toEqual({ press, playable: 'true' });
          await p.page.keyboard.press(press);
        }
        expect(await focused()).toBe('true');
        // Tab from the page's start never stops on an unplayable tile.
        await p.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        for (let i = 0; i < 25; i++) {
          await p.page.keyboard.press('Tab');
          const onTile = await p.page.evaluate(() => document.activeElement?.getAttribute('data-playable'));
          expect(onTile === null || onTile === 'true').toBe(true);
        }

        // The sorted hand (display only), remembered; the note about the deadline's dealt order.
        const order = () =>
          p.page.$$eval('[data-testid="hand-tile"]', (els) =>
            els.map((e) => e.getAttribute('data-tile') ?? ''),
          );
        expect(await order()).toEqual(choose.game.hand.map(key));
        await p.page.getByTestId('sort-hand').click();
        const sortedKeys = [...choose.game.hand]
          .sort((a, b) => Math.min(...a) - Math.min(...b) || Math.max(...a) - Math.max(...b))
          .map(key);
        await until('sorted', async () => JSON.stringify(await order()) === JSON.stringify(sortedKeys));
        expect(await p.page.getByTestId('sort-note').isVisible()).toBe(true);
        expect(await p.page.getByTestId('sort-note').textContent()).toMatch(/order dealt/);
        await check('03-sorted');
        await p.page.reload();
        await p.page.getByTestId('game').waitFor();
        await until('still sorted', async () => JSON.stringify(await order()) === JSON.stringify(sortedKeys));
        expect(await p.page.getByTestId('sort-hand').getAttribute('aria-checked')).toBe('true');
        await p.page.getByTestId('sort-hand').click();
        await until(
          'dealt order',
          async () => JSON.stringify(await order()) === JSON.stringify(choose.game.hand.map(key)),
        );

        // Reconnecting: the banner never covers a seat's name, and says the turn is short while away.
        await served.drop();
        await until(
          'reconnecting',
          async () => (await p.page.getByTestId('connection').getAttribute('data-status')) === 'reconnecting',
        );
        const banner = await boxOf('.connection-banner');
        for (const name of await p.page.locator('.seat [data-testid="seat-name"]').all())
          expect(overlaps(banner, (await name.boundingBox())!)).toBe(false);
        expect(await p.page.getByTestId('away-turn').textContent()).toMatch(
          /your turn: while you are away it lasts 5 s/,
        );
        await p.shot(S, '04-reconnecting');
        served.restore();
        await until(
          'online',
          async () => (await p.page.getByTestId('connection').getAttribute('data-status')) === 'online',
          15_000,
        );

        // Back after a drop with a shortened turn (P17): said plainly. With a whole turn left: not said.
        const withDeadline = (ms: number, shortened: boolean) => {
          const v = tableView(choose.match, 0, names);
          const clock = { kind: 'turn' as const, seat: 0, deadline: Date.now() + ms };
          return { ...v, clock: shortened ? { ...clock, shortened: true as const } : clock };
        };
        served.push(withDeadline(4_000, true));
        await p.page.reload();
        await p.page.getByTestId('short-turn').waitFor({ timeout: 5_000 });
        expect(await p.page.getByTestId('short-turn').textContent()).toMatch(
          /You were disconnected: your turn is only 5 s/,
        );
        await check('05-short-turn');
        served.push(withDeadline(40_000, false));
        await p.page.reload();
        await p.page.getByTestId('game').waitFor();
        await sleep(500);
        expect(await p.page.getByTestId('short-turn').count()).toBe(0);

        // A tile just drawn is marked in the hand.
        version = served.push(tableView(drew.match, 0, ['Ana', 'Boris']));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        expect(
          (
            await p.page.$$eval('[data-testid="hand-tile"][data-new="true"]', (els) =>
              els.map((e) => e.getAttribute('data-tile')),
            )
          ).sort(),
        ).toEqual([...newlyDrawn(drew.game, 0)].sort());
        // Nothing fits: the hand leaves the tab order while the clock runs; Tab never stops on a tile.
        expect(drew.game.legal.some((a) => a.type === 'play')).toBe(false);
        await p.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
        for (let i = 0; i < 25; i++) {
          await p.page.keyboard.press('Tab');
          expect(await p.page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).not.toBe(
            'hand-tile',
          );
        }
        await check('06-drawn');

        // The end of a match: "Match over", large revealed hands; folded away, "Show the result"
        // sits in the status bar, off the top seat's name.
        version = served.push(tableView(over, 0, names));
        await until(
          'shown',
          async () => Number(await p.page.getByTestId('game').getAttribute('data-version')) >= version,
        );
        await p.page.getByTestId('result-title').waitFor();
        expect(await p.page.getByTestId('result-title').textContent()).toBe('Match over');
        expect(await p.page.getByTestId('status-title').textContent()).toBe('Match over');
        for (const tile of await p.page.locator('.reveal-tile svg').all()) {
          const box = (await tile.boundingBox())!;
          expect(box.width).toBeGreaterThanOrEqual(phone ? 24 : 28);
        }
        await check('07-match-over');
        await p.page.getByRole('button', { name: 'Show the board' }).click();
        const show = await boxOf('[data-testid="show-result"]');
        expect(await p.page.getByTestId('show-result').textContent()).toBe('Show the result');
        expect(await p.page.getByTestId('status-title').isVisible()).toBe(true);
        expect(await p.page.getByTestId('status-title').textContent()).toBe('Match over');
        for (const name of await p.page.locator('.seat [data-testid="seat-name"]').all())
          expect(overlaps(show, (await name.boundingBox())!)).toBe(false);
        await check('08-match-over-folded');
        expect(p.errors).toEqual([]);
      } finally {
        await p.close();
      }
    }
  }, 240_000);
});
