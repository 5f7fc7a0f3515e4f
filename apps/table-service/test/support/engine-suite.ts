import { startEngineHarness, type EngineHarness } from './engine-harness';
import { watchSeatChannels, type SeatChannels } from './seat-channels';

/**
 * A suite's engine harness (its own database and key prefix), started before its tests and disposed
 * after them; with `seatTables`, the views channels of those tables watched as the gateways would.
 */
export function engineSuite(
  label: string,
  seatTables: readonly string[] = [],
): { readonly harness: EngineHarness; readonly channels: SeatChannels } {
  let harness: EngineHarness | undefined;
  let channels: SeatChannels | undefined;
  beforeAll(async () => {
    harness = await startEngineHarness(label);
    if (seatTables.length > 0)
      channels = await watchSeatChannels(harness.stores.redisUrl, harness.names, seatTables);
  });
  afterAll(async () => {
    channels?.close();
    await harness?.dispose();
  });
  const started = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`the suite's ${what} is not there (outside its tests, or no seatTables)`);
    return value;
  };
  return {
    get harness() {
      return started(harness, 'harness');
    },
    get channels() {
      return started(channels, 'views channels');
    },
  };
}
