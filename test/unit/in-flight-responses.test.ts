/**
 * server/in-flight-responses.ts: the responses in flight for the lifecycle's drain. A closed
 * response leaves at once, its slot goes to the next one, and a response is never counted twice.
 * Real node:http response objects, no server.
 */
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, test } from 'node:test';
import { InFlightResponses } from '../../gateway/server/in-flight-responses.js';

const response = (): ServerResponse => new ServerResponse(new IncomingMessage(new Socket()));

describe('responses in flight', () => {
  test('a deleted response is no longer iterated, and its slot goes to the next one', () => {
    const inFlight = new InFlightResponses();
    const [a, b, c, d] = [response(), response(), response(), response()];
    inFlight.add(a);
    inFlight.add(b);
    inFlight.add(c);
    assert.equal(inFlight.size, 3);
    assert.equal(inFlight.delete(b), true);
    assert.equal(inFlight.size, 2);
    assert.deepEqual([...inFlight], [a, c]);
    inFlight.add(d);
    assert.deepEqual([...inFlight], [a, d, c], 'd takes the slot b left');
  });

  test('deleting twice, or a response never added, changes nothing', () => {
    const inFlight = new InFlightResponses();
    const [a, b, stranger] = [response(), response(), response()];
    inFlight.add(a);
    inFlight.add(b);
    assert.equal(inFlight.delete(a), true);
    assert.equal(inFlight.delete(a), false);
    assert.equal(inFlight.delete(stranger), false);
    assert.equal(inFlight.size, 1);
    assert.deepEqual([...inFlight], [b]);
    inFlight.add(stranger);
    assert.equal(inFlight.delete(a), false, 'a stale slot number does not delete the response now in it');
    assert.deepEqual([...inFlight], [stranger, b]);
  });

  test('many requests coming and going: the count and the responses stay exact', () => {
    const inFlight = new InFlightResponses();
    const open: ServerResponse[] = [];
    for (let i = 0; i < 2000; i++) {
      const res = response();
      inFlight.add(res);
      open.push(res);
      if (open.length > 3) assert.equal(inFlight.delete(open.splice(i % open.length, 1)[0]!), true);
      assert.equal(inFlight.size, open.length);
    }
    assert.deepEqual(new Set(inFlight), new Set(open));
    for (const res of open) inFlight.delete(res);
    assert.equal(inFlight.size, 0);
    assert.deepEqual([...inFlight], []);
  });
});
