export * from './sql-errors';
export * from './table-queries';
