import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startMockServer } from '../../src/server/start-server.js';
import { parseResponses } from './support/http-response-parser.js';

/**
 * Issue 10, item 11: graceful shutdown never drops a pipelined request it already executed. Ten
 * connections each send batches of ten pipelined POSTs, back to back, while the server shuts down:
 * every category created must have been answered 201 to its client (a client must assume that
 * what was not answered did not happen, and retry it).
 *
 * In-process (`mock.close()` is what the CLI runs on SIGTERM): the creations are read from the store
 * after the close, which a separate process could not show.
 */
const connections = 10;
const batch = 10;

interface LoadReport {
  sent: number;
  answered201: number;
  otherStatuses: number[];
  unreadable: string[];
}

function pipelinedPoster(port: number, connectionIndex: number): { stop(): void; done: Promise<LoadReport> } {
  const socket = connect({ port, host: '127.0.0.1' });
  let received = Buffer.alloc(0);
  let sent = 0;
  let stopped = false;
  let sequence = 0;
  const request = () => {
    const body = JSON.stringify({ name: `c${connectionIndex}-${sequence++}` });
    return `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-enterprise\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
  const sendBatch = () => {
    if (stopped || socket.destroyed || !socket.writable) return;
    let text = '';
    for (let index = 0; index < batch; index += 1) text += request();
    sent += batch;
    socket.write(text);
  };
  /** The bytes of the batch in flight: the next batch goes out once they parse as `batch` whole answers. */
  let batchBytes = Buffer.alloc(0);
  const batchAnswered = () => {
    try {
      return parseResponses(batchBytes, { connectionClosed: false }).length === batch;
    } catch {
      return false;
    }
  };
  socket.on('connect', sendBatch);
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    batchBytes = Buffer.concat([batchBytes, chunk]);
    if (batchAnswered()) {
      batchBytes = Buffer.alloc(0);
      sendBatch();
    }
  });
  socket.on('error', () => {});
  const done = new Promise<LoadReport>((resolve) =>
    socket.once('close', () => {
      const report: LoadReport = { sent, answered201: 0, otherStatuses: [], unreadable: [] };
      try {
        for (const response of parseResponses(received, { connectionClosed: true })) {
          if (response.status === 201) report.answered201 += 1;
          else report.otherStatuses.push(response.status);
        }
      } catch (error) {
        report.unreadable.push((error as Error).message);
      }
      resolve(report);
    }),
  );
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}

describe('graceful shutdown with pipelined requests (item 11)', () => {
  it('answers every request it executed: categories created == 201s received, over 3 runs', async () => {
    for (let run = 0; run < 3; run += 1) {
      const mock = await startMockServer({ port: 0, config: { maxCategories: 1_000_000 } });
      const seeded = (await mock.app.controls.categories()).length;
      const posters = Array.from({ length: connections }, (_, index) => pipelinedPoster(mock.port, index));
      // Let the load get well under way (by answers, not the clock): several batches per connection.
      for (
        let waited = 0;
        waited < 5_000 && (await mock.app.controls.categories()).length - seeded < connections * batch * 5;
        waited += 10
      ) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await mock.close(5_000);
      for (const poster of posters) poster.stop();
      const reports = await Promise.all(posters.map((poster) => poster.done));
      const created = (await mock.app.controls.categories()).length - seeded;
      const answered = reports.reduce((sum, report) => sum + report.answered201, 0);
      expect(reports.flatMap((report) => report.unreadable)).toEqual([]);
      expect(reports.flatMap((report) => report.otherStatuses)).toEqual([]);
      expect(created, `run ${run}: ${created} created, ${answered} answered`).toBe(answered);
      expect(created).toBeGreaterThanOrEqual(connections * batch * 5);
    }
  });
});
