// The e2e-cluster project (decision 0025): TestSystem starts a Redis Cluster of its own for each
// suite (6 redis-server processes, 3 primaries) instead of using the one Redis.
process.env.E2E_REDIS = 'cluster';
