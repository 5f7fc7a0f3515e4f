/**
 * What every browser suite sets up: the web page built, one Chromium for the suite (and, for most,
 * the system it runs against), started before its tests and stopped after them; and the check each
 * takes of a screen (a screenshot, then no layout problem on it).
 */
import type { Browser } from 'playwright-core';
import { ensureWebBuilt, launchChromium, layoutProblems, type BrowserPlayer } from '../browser-players';

const STARTS_MS = 180_000;

function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} has not started (used outside the suite's tests)`);
  return value;
}

/** The suite's Chromium, launched (after building the page if it is older than its sources) before its tests, closed after. */
export function suiteChromium(startsMs = STARTS_MS): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureWebBuilt();
    browser = await launchChromium();
  }, startsMs);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      return started(browser, 'the browser');
    },
  };
}

/** The suite's Chromium and the system `start` starts (TestSystem, InProcessSystem), both stopped after its tests. */
export function browserSuite<S extends { stop(): Promise<unknown> }>(
  start: () => Promise<S>,
  startsMs = STARTS_MS,
): { readonly browser: Browser; readonly system: S } {
  const chromium = suiteChromium(startsMs);
  let system: S | undefined;
  beforeAll(async () => {
    system = await start();
  }, startsMs);
  afterAll(async () => {
    await system?.stop();
  });
  return {
    get browser() {
      return chromium.browser;
    },
    get system() {
      return started(system, 'the system');
    },
  };
}

/**
 * A screenshot of each page (test-artifacts/screenshots/<scenario>-<step>-<viewport>.png), whose
 * layout must have no problem (nothing off the screen or overlapping); `ignore` passes over the
 * problems a suite does not own.
 */
export async function expectShotsLaidOut(
  scenario: string,
  step: string,
  players: readonly BrowserPlayer[],
  ignore: (problem: string) => boolean = () => false,
): Promise<void> {
  for (const p of players) {
    await p.shot(scenario, step);
    const problems = (await layoutProblems(p.page)).filter((problem) => !ignore(problem));
    expect({ player: p.name, step, problems }).toEqual({ player: p.name, step, problems: [] });
  }
}
