import {
  DuplicateIntentError,
  IntentExpiredError,
  StaleWriteError,
  StoreUnavailableError,
  TooManyTablesError,
  WriteOutcomeUnknownError,
} from '../src/table/table-ports';

/*
 * The store's refusals as the engine and the transport tell them apart (by class and name) and as
 * players and logs read them (the message; TooManyTablesError's text is the refusal a host sees).
 */
describe("the table store's errors", () => {
  it('StaleWriteError names the table and the version it was decided on (fencing)', () => {
    const error = new StaleWriteError('ABC123', 7);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('StaleWriteError');
    expect(error.message).toBe('Table ABC123 is no longer at version 7: another replica wrote it.');
  });

  it("WriteOutcomeUnknownError keeps its cause and says it in the message, an Error's message or any other value as text", () => {
    const cause = new Error('Connection terminated unexpectedly');
    const error = new WriteOutcomeUnknownError('ABC123', cause);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('WriteOutcomeUnknownError');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe(
      'The store did not say whether the change of table ABC123 was written: Connection terminated unexpectedly',
    );
    expect(new WriteOutcomeUnknownError('T1', 'socket hang up').message).toBe(
      'The store did not say whether the change of table T1 was written: socket hang up',
    );
  });

  it("StoreUnavailableError keeps its cause and says which table's read failed, an Error's message or any other value as text", () => {
    const cause = new Error('Connection refused');
    const error = new StoreUnavailableError('ABC123', cause);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('StoreUnavailableError');
    expect(error.cause).toBe(cause);
    expect(error.message).toBe('The store did not answer a read of table ABC123: Connection refused');
    expect(new StoreUnavailableError('T1', 503).message).toBe(
      'The store did not answer a read of table T1: 503',
    );
  });

  it('TooManyTablesError tells the host how many tables are open and the limit, and keeps both', () => {
    const error = new TooManyTablesError(5, 5);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('TooManyTablesError');
    expect([error.open, error.limit]).toEqual([5, 5]);
    expect(new TooManyTablesError(6, 5).message).toBe(
      'You have 6 open tables, the most one host may have (5): finish one or let it close first.',
    );
  });

  it('IntentExpiredError keeps the intent id and says nothing was stored in time', () => {
    const error = new IntentExpiredError('intent-9');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('IntentExpiredError');
    expect(error.intentId).toBe('intent-9');
    expect(error.message).toBe('Intent intent-9 expired before it was stored.');
  });

  it('DuplicateIntentError names the intent stored already (at most once per table)', () => {
    const error = new DuplicateIntentError('intent-9');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('DuplicateIntentError');
    expect(error.message).toBe('Intent intent-9 was stored already.');
  });
});
