export * from './sql-errors';
export * from './table-queries';
export * from './lobby-queries';
export * from './match-history-queries';
