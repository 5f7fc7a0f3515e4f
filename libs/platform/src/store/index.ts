export * from './sql-errors';
export * from './table-queries';
export * from './lobby-queries';
export * from './match-history-queries';
export * from './sharded-table-queries';
export * from './sharded-read-queries';
export * from './change-batches';
