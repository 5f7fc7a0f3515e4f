/**
 * Players as people in a real browser: one Chromium context each, driven only through the page
 * (clicks, taps, keys, drags). The test also reads the WebSocket frames the page receives, to compare
 * what the page shows with what the server said (the highlighted tiles against `view.game.legal`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { applyViewChange, type ServerMessage, type TableView } from '@dominoes/protocol';
import { ARTIFACTS, ROOT } from '../../../e2e/src/system';

export const SHOTS = join(ARTIFACTS, 'screenshots');
export const PHONE = { width: 390, height: 844 } as const;
export const DESKTOP = { width: 1440, height: 900 } as const;
export type Viewport = typeof PHONE | typeof DESKTOP;
export type Method = 'click' | 'tap' | 'keyboard' | 'drag';

const WEB = join(ROOT, 'apps/web');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds apps/web/dist when it is missing or older than the sources (`npm run build` normally did it). */
export function ensureWebBuilt(): void {
  const index = join(WEB, 'dist/index.html');
  const sources = Math.max(newestMtime(join(WEB, 'src')), statSync(join(WEB, 'index.html')).mtimeMs);
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', WEB, '--logLevel', 'warn'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const key = (tile: readonly number[]): string =>
  `${Math.min(tile[0]!, tile[1]!)}-${Math.max(tile[0]!, tile[1]!)}`;

export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const started = Date.now();
  let last: unknown = null;
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await probe();
      if (value !== null && value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export class BrowserPlayer {
  view: TableView | null = null;
  version = -1;
  readonly errors: string[] = [];

  private constructor(
    readonly name: string,
    readonly context: BrowserContext,
    readonly page: Page,
    readonly viewport: Viewport,
    readonly method: Method,
  ) {
    page.on('websocket', (ws) => {
      ws.on('framereceived', ({ payload }) => {
        try {
          const frame = JSON.parse(String(payload)) as ServerMessage;
          if (frame.type === 'view' && frame.version >= this.version) {
            this.view = frame.view;
            this.version = frame.version;
          }
          // A change applies to the view the page was sent last (decision 0036).
          if (frame.type === 'viewChange' && this.view && frame.base === this.version) {
            this.view = applyViewChange(this.view, frame.change);
            this.version = frame.version;
          }
        } catch {
          // not JSON: ignore
        }
      });
    });
    page.on('pageerror', (error) => this.errors.push(error.message));
    page.on('console', (message) => {
      if (
        message.type() === 'error' &&
        !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(message.text())
      )
        this.errors.push(message.text());
    });
  }

  static async open(
    browser: Browser,
    name: string,
    viewport: Viewport,
    method: Method,
    locale = 'en-US',
  ): Promise<BrowserPlayer> {
    const phone = viewport.width < 500;
    const context = await browser.newContext({
      viewport,
      locale,
      hasTouch: phone,
      isMobile: phone,
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    return new BrowserPlayer(name, context, page, viewport, method);
  }

  get size(): string {
    return `${this.viewport.width}x${this.viewport.height}`;
  }

  get seat(): number {
    return this.view?.you.seat ?? -1;
  }

  async shot(scenario: string, step: string): Promise<string> {
    mkdirSync(SHOTS, { recursive: true });
    const path = join(SHOTS, `${scenario}-${step}-${this.size}.png`);
    await this.page.screenshot({ path });
    return path;
  }

  /** Name prompt → identity (first visit). */
  async enterName(): Promise<void> {
    const box = this.page.getByTestId('name-form').locator('input[name="name"]');
    await box.fill(this.name);
    await this.press(this.page.getByTestId('name-form').locator('button[type="submit"]'));
  }

  /** Activates a button the way this player works: click, tap, or focus + Enter. */
  async press(locator: ReturnType<Page['locator']>): Promise<void> {
    if (this.method === 'tap') await locator.tap({ timeout: 10_000 });
    else if (this.method === 'keyboard') {
      await this.tabTo(locator);
      await this.page.keyboard.press('Enter');
    } else await locator.click({ timeout: 10_000 });
  }

  /** Presses Tab until `locator` has the focus (only the keyboard, as a person without a mouse). */
  async tabTo(locator: ReturnType<Page['locator']>, maxPresses = 80): Promise<void> {
    const target = await locator.elementHandle({ timeout: 10_000 });
    if (!target) throw new Error('tabTo: no such element');
    for (let i = 0; i < maxPresses; i++) {
      const focused = await this.page.evaluate((el) => document.activeElement === el, target);
      if (focused) return;
      await this.page.keyboard.press('Tab');
    }
    throw new Error('tabTo: the element never took the focus');
  }

  /** The page shows the newest view the socket received (its root carries the version). */
  async synced(): Promise<boolean> {
    const shown = await this.page
      .getByTestId('game')
      .getAttribute('data-version', { timeout: 500 })
      .catch(() => null);
    return shown !== null && Number(shown) >= this.version;
  }

  async domPlayable(): Promise<string[]> {
    return (
      await this.page.$$eval('[data-testid="hand-tile"][data-playable="true"]', (els) =>
        els.map((e) => e.getAttribute('data-tile') ?? ''),
      )
    ).sort();
  }

  legalTiles(): string[] {
    const legal = this.view?.game?.legal ?? [];
    return [...new Set(legal.flatMap((a) => (a.type === 'play' ? [key(a.tile)] : [])))].sort();
  }

  async liveText(): Promise<string> {
    return (await this.page.getByTestId('live').textContent()) ?? '';
  }

  async close(): Promise<void> {
    await this.context.close();
  }
}

export interface LayoutProblems {
  readonly problems: string[];
}

/**
 * Nothing of the table falls off the screen or overlaps: page width, the board, the seats, the hand,
 * the controls, the result panel; the tiles on the board inside the board and not on each other.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    // A tile moving onto the board (the `arrive` slide) is measured where it lands; the clock's
    // ring and the spinner, which move all the time, are left alone. The wait and the measure run in
    // one task of the page: a move that arrives while the last slide ends starts its own slide,
    // which is waited for too, never measured mid-way.
    const sliding = () =>
      document
        .getAnimations()
        .filter(
          (a) => a.playState !== 'finished' && a instanceof CSSAnimation && a.animationName === 'arrive',
        );
    for (let i = 0; i < 20 && sliding().length > 0; i++)
      await Promise.all(sliding().map((a) => a.finished.catch(() => undefined)));
    const out: string[] = [];
    const vw = document.documentElement.clientWidth;
    const vh = window.innerHeight;
    if (document.documentElement.scrollWidth > vw + 1)
      out.push(`page is ${document.documentElement.scrollWidth}px wide in ${vw}px`);
    const selectors = [
      '[data-testid="board"]',
      '[data-testid="hand"]',
      '[data-testid="hand-tile"]',
      '.seat',
      '.status-bar',
      '.my-area',
      '.controls button',
      '.end-choice',
      '.result-panel',
      '.app-header',
      '.card',
    ];
    const rect = (el: Element) => el.getBoundingClientRect();
    for (const selector of selectors) {
      for (const el of Array.from(document.querySelectorAll(selector))) {
        const r = rect(el);
        if (r.width === 0 && r.height === 0) continue;
        if (r.left < -1 || r.right > vw + 1)
          out.push(`${selector} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${vw}`);
      }
    }
    // The main parts of the table do not overlap one another.
    const parts = Array.from(
      document.querySelectorAll('.seat, [data-testid="board"], .status-bar, .my-area'),
    );
    for (let i = 0; i < parts.length; i++) {
      for (let j = i + 1; j < parts.length; j++) {
        const a = rect(parts[i]!);
        const b = rect(parts[j]!);
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 1) out.push(`${parts[i]!.className} overlaps ${parts[j]!.className}`);
      }
    }
    // The "Reconnecting…" banner and "Show the result" cover no seat's name.
    for (const cover of Array.from(
      document.querySelectorAll('.connection-banner, [data-testid="show-result"]'),
    )) {
      const c = rect(cover);
      for (const name of Array.from(document.querySelectorAll('.seat [data-testid="seat-name"]'))) {
        const n = rect(name);
        const x = Math.min(c.right, n.right) - Math.max(c.left, n.left);
        const y = Math.min(c.bottom, n.bottom) - Math.max(c.top, n.top);
        if (x > 0 && y > 0) out.push(`${cover.className} covers the name ${name.textContent ?? ''}`);
      }
    }
    // The table itself fits the screen's height (the side panel may scroll below on a phone).
    const game = document.querySelector('.table-column');
    if (game && rect(game).bottom > vh + 1)
      out.push(`the table ends at ${Math.round(rect(game).bottom)} below ${vh}`);
    const board = document.querySelector('[data-testid="board"]');
    if (board) {
      const b = rect(board);
      const tiles = Array.from(board.querySelectorAll('[data-placement] .tile-body')).map(rect);
      tiles.forEach((r, i) => {
        if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
          out.push(`board tile ${i} is outside the board`);
        for (let j = i + 1; j < tiles.length; j++) {
          const s = tiles[j]!;
          const x = Math.min(r.right, s.right) - Math.max(r.left, s.left);
          const y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
          if (x > 1.5 && y > 1.5) out.push(`board tiles ${i} and ${j} overlap`);
        }
      });
      // Readable: a half-tile square of at least 12 px.
      const unit = Number(board.querySelector('svg')?.getAttribute('data-unit') ?? '99');
      if (unit < 12) out.push(`board tiles are too small (${unit}px)`);
    }
    return out;
  });
}
