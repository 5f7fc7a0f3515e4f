import { createLogger } from '@dominoes/platform';
import { readGatewayConfig } from '../../apps/gateway/src/config';
import { startGateway, type GatewayApp } from '../../apps/gateway/src/gateway-app';
import { readConfig } from '../../apps/table-service/src/config';
import { startTableService, type TableServiceApp } from '../../apps/table-service/src/table-app';
import { freePort } from '../../libs/platform/src/free-port';
import { createTestStores, type TestStores } from '../../libs/platform/src/test-stores';

/** TABLE_SHARDS of an in-process system (a table's Redis names depend on it). */
export const IN_PROCESS_SHARDS = 4;

/**
 * The real table-service and N real gateways in this process, on a database and a Redis prefix of
 * their own (real Postgres and Redis): for suites that need several gateways but not separate
 * processes, and run from the sources (no build of the tree needed).
 */
export class InProcessSystem {
  private constructor(
    readonly stores: TestStores,
    readonly service: TableServiceApp,
    readonly gateways: readonly GatewayApp[],
  ) {}

  static async start(
    label: string,
    options: { readonly gateways?: number; readonly gatewayEnv?: Record<string, string> } = {},
  ): Promise<InProcessSystem> {
    const stores = await createTestStores(label);
    const logLevel = process.env.TEST_LOG_LEVEL ?? 'silent';
    const common = {
      DATABASE_URL: stores.databaseUrl,
      REDIS_URL: stores.redisUrl,
      REDIS_PREFIX: stores.redisPrefix,
      TABLE_SHARDS: String(IN_PROCESS_SHARDS),
      PORT: '0',
    };
    const service = await startTableService(readConfig(common), {
      logger: createLogger('table-service-test', logLevel),
      defaultMetrics: false,
    });
    const gateways: GatewayApp[] = [];
    for (let i = 0; i < (options.gateways ?? 1); i++) {
      // A port known before the start: the page's origin (PUBLIC_URL) is the only one the API answers.
      const port = await freePort();
      gateways.push(
        await startGateway(
          readGatewayConfig({
            ...common,
            PORT: String(port),
            PUBLIC_URL: `http://127.0.0.1:${port}`,
            METRICS_PORT: '0',
            HOST: '127.0.0.1',
            TOKEN_SECRET: `in-process-secret-${label}-0123456789abcdef`,
            GATEWAY_ID: `${label.replace(/[^a-z0-9-]/gi, '-').slice(0, 20)}-gw${i}`,
            NODE_ENV: 'test',
            RATE_LIMIT_IDENTITIES: '0',
            RATE_LIMIT_TABLES: '0',
            RATE_LIMIT_LOOKUP_MISSES: '0',
            RATE_LIMIT_QUICK_PLAYS: '0',
            ...(options.gatewayEnv ?? {}),
          }),
          { logger: createLogger('gateway-test', logLevel), defaultMetrics: false },
        ),
      );
    }
    return new InProcessSystem(stores, service, gateways);
  }

  httpUrl(gateway: number): string {
    return `http://127.0.0.1:${this.gateways[gateway]!.port}`;
  }

  wsUrl(gateway: number): string {
    return `ws://127.0.0.1:${this.gateways[gateway]!.port}/ws`;
  }

  async stop(): Promise<void> {
    for (const gateway of this.gateways) await gateway.shutdown().catch(() => undefined);
    await this.service.shutdown().catch(() => undefined);
    await this.stores.dispose();
  }
}
