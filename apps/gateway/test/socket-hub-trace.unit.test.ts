import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { shutdownTelemetry, SpanKind, startTelemetry } from '@dominoes/platform';
import { newTableCode } from '../src/lobby/table-opener';
import { ANN, connId, hubRig, hubSuite, ok, received } from './socket-hub-harness';
import { waitFor } from './support';

/**
 * The trace of a socket's intent starts in the hub (an in-memory span exporter): a server span
 * `ws.intent <type>` naming the connection and the player, whose context the envelope carries on.
 */
const exporter = new InMemorySpanExporter();
const suite = hubSuite('socket_hub_trace', {
  start: () =>
    startTelemetry('gateway', { spanProcessors: [new SimpleSpanProcessor(exporter)], instrument: false }),
  stop: shutdownTelemetry,
});

const spansNamed = (name: string) => exporter.getFinishedSpans().filter((s) => s.name === name);

describe('SocketHub: the trace of an intent', () => {
  it("a join is a server span 'ws.intent join' with the connection and the player; the envelope carries its trace", async () => {
    const rig = await hubRig(suite);
    suite.tableService.respond = (e) => ok(e, 1, null);
    const table = newTableCode();
    const socket = rig.authed(ANN);
    exporter.reset();
    socket.text({ type: 'join', id: 'j1', table });
    await waitFor(() => spansNamed('ws.intent join').length === 1, 1500, 'the span');
    const [span] = spansNamed('ws.intent join');
    expect(span!.kind).toBe(SpanKind.SERVER);
    expect(span!.attributes).toMatchObject({
      'dominoes.connection': connId(rig, 1),
      'dominoes.player': ANN.id,
    });
    const [envelope] = await received(suite, table, 1);
    expect(envelope!.traceparent).toContain(span!.spanContext().traceId);
    expect(socket.framesOf('ack')).toEqual([{ type: 'ack', id: 'j1', version: 1 }]);
  });

  it("an unauthenticated socket's intent span names no player", async () => {
    const rig = await hubRig(suite);
    const socket = rig.open();
    exporter.reset();
    socket.text({ type: 'leave', id: 'l1' });
    await waitFor(() => spansNamed('ws.intent leave').length === 1, 1500, 'the span');
    expect(spansNamed('ws.intent leave')[0]!.attributes).toMatchObject({ 'dominoes.player': '' });
    expect(socket.last()).toMatchObject({ id: 'l1', code: 'UNAUTHENTICATED' });
  });
});
