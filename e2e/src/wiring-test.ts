/**
 * For the wiring suites of the services (gateway-wiring*, timer-wiring): the app starts inside ONE
 * test, so that the mutation run counts the module's code as this test's (started in a beforeAll it
 * would be static, and not measured), and that test checks it in named steps.
 *
 * `step(name, check)` adds a step; `test(start)`, called after the last step, declares the test
 * `starts, then: <each step's name, in order>`: it awaits `start()`, then each check in order, and a
 * check that fails has its step's name put before its message.
 */
export function wiringSteps(): {
  step(name: string, check: () => unknown): void;
  test(start: () => Promise<unknown>, timeoutMs?: number): void;
} {
  const steps: [string, () => unknown][] = [];
  return {
    step: (name, check) => void steps.push([name, check]),
    test(start, timeoutMs = 120_000) {
      it(
        `starts, then: ${steps.map(([name]) => name).join('; ')}`,
        async () => {
          await start();
          for (const [name, check] of steps) {
            try {
              await check();
            } catch (error) {
              if (error instanceof Error) error.message = `${name}: ${error.message}`;
              throw error;
            }
          }
        },
        timeoutMs,
      );
    },
  };
}

/** A service at `base` is live (200) and ready (200), its readiness body `body`. */
export async function expectLiveAndReady(base: string, body: Record<string, string>): Promise<void> {
  expect((await fetch(`${base}/health/live`)).status).toBe(200);
  const ready = await fetch(`${base}/health/ready`);
  expect(ready.status).toBe(200);
  expect(await ready.json()).toEqual(body);
}
