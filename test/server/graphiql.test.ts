/**
 * docs/hardening.md: GraphiQL works with no internet access. Its page names no other
 * host (script, styles and editor workers come from this gateway's /graphiql/*), a real headless
 * Chromium with every request to another host blocked loads it and runs a query, and
 * `graphiql = false` removes the page and its assets.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import puppeteer from 'puppeteer-core';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import type { CountingUpstream } from '../support/upstream.js';
import { makePosts, makeUsers, QUERY_TYPE, startPosts, startUsers, USER_TYPE, BATCHED_POST_TYPE } from '../core/fixtures.js';

const SCHEMA = `${USER_TYPE}${QUERY_TYPE}${BATCHED_POST_TYPE}`;
/** GraphiQL's first tab for SCHEMA (gateway/server/sample-query.ts), as its query editor shows it. */
const DEFAULT_TAB = /X-GQL-Rounds.*extensions.*gqlgw.*\{\s*posts\s*\{\s*id\s*title\s*author\s*\{\s*name\s*\}\s*\}\s*\}/;
/** Debian's chromium package; .ci/run installs it when it is missing. */
const CHROMIUM = '/usr/bin/chromium';

describe('GraphiQL without the internet', () => {
  let posts: CountingUpstream;
  let users: CountingUpstream;
  let gw: TestGateway;
  let off: TestGateway;

  before(async () => {
    posts = await startPosts(makePosts(3, () => 1));
    users = await startUsers(makeUsers(2));
    const sources = { posts: { url: posts.url }, users: { url: users.url } };
    gw = await startTestGateway({ schemas: { 'schema.graphqls': SCHEMA }, sources });
    off = await startTestGateway({
      schemas: { 'schema.graphqls': SCHEMA },
      toml: `[gateway]\nhost = "127.0.0.1"\nport = 0\nschema = ["schema.graphqls"]\ngraphiql = false\n\n[sources.posts]\nurl = "${posts.url}"\n\n[sources.users]\nurl = "${posts.url}"\n`,
    });
  });
  after(async () => {
    await gw.close();
    await off.close();
    await posts.close();
    await users.close();
  });

  test('the page names no other host, and its assets are served by the gateway', async () => {
    const page = await gw.get('/graphql', { accept: 'text/html' });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /<script src="\/graphiql\/graphiql\.js"><\/script>/);
    assert.deepEqual(page.text.match(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>)]*/gi) ?? [], [], 'no absolute URL in the page');
    const settings = /renderYogaGraphiQL\([^,]+, (\{.*\})\);/.exec(page.text);
    assert.ok(settings, 'the page hands GraphiQL its settings');
    const defaultQuery = (JSON.parse(settings[1]!) as { defaultQuery?: string }).defaultQuery ?? '';
    assert.match(defaultQuery.replace(/\s+/g, ' '), DEFAULT_TAB);
    assert.equal(defaultQuery.split('\n').filter((line) => line.startsWith('#')).length, 1, 'one line on the counts');
    for (const asset of ['graphiql.js', 'graphiql.css', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js', 'favicon.ico']) {
      const res = await fetch(`${gw.origin}/graphiql/${asset}`);
      assert.equal(res.status, 200, asset);
      assert.ok((await res.arrayBuffer()).byteLength > 1000, asset);
    }
  });

  test('graphiql = false: no page and no assets; GET /graphql is a plain GraphQL answer', async () => {
    const page = await off.get('/graphql', { accept: 'text/html' });
    assert.doesNotMatch(page.headers.get('content-type') ?? '', /html/);
    assert.equal(page.status, 400);
    assert.doesNotMatch(page.text, /graphiql/i);
    assert.equal((await fetch(`${off.origin}/graphiql/graphiql.js`)).status, 404);
  });

  test('a real headless Chromium, with every request to another host blocked, runs a query in GraphiQL', async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
    const profile = await mkdtemp(path.join(tmpdir(), 'gqlgw-chromium-'));
    const browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${profile}`,
      ],
    });
    try {
      const page = await browser.newPage();
      // Tall enough that the result editor (which renders only the lines in view) shows the whole answer.
      await page.setViewport({ width: 1400, height: 3000 });
      const blocked: string[] = [];
      await page.setRequestInterception(true);
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1') void request.continue();
        else {
          blocked.push(request.url());
          void request.abort();
        }
      });
      // A newcomer's first look: the default tab holds a real query of this schema and the line on
      // the counts, not GraphiQL's stock text, and running it shows the counts in the result.
      const firstLoad = page.waitForResponse(
        (response) => response.request().method() === 'POST' && (response.request().postData() ?? '').includes('__schema'),
        { timeout: 60_000 },
      );
      await page.goto(gw.url, { waitUntil: 'load', timeout: 60_000 });
      assert.equal((await firstLoad).status(), 200);
      await page.waitForFunction(() => /author/.test(document.querySelector('.graphiql-query-editor')?.textContent ?? ''), {
        timeout: 60_000,
        polling: 50,
      });
      const tab = await page.$eval('.graphiql-query-editor', (element) => element.textContent ?? '');
      assert.match(tab.replace(/\s+/g, ' '), DEFAULT_TAB);
      assert.doesNotMatch(tab, /in-browser tool|Welcome to/);
      posts.reset();
      await page.click('.graphiql-execute-button');
      await page.waitForFunction(() => /rounds/.test(document.querySelector('.result-window')?.textContent ?? ''), {
        timeout: 60_000,
        polling: 50,
      });
      const counted = (await page.$eval('.result-window', (element) => element.textContent ?? '')).replace(/\s+/g, '');
      assert.match(counted, /"author":\{"name":"User1"\}/);
      assert.match(counted, /"gqlgw":\{"rounds":2,"subrequests":2,"batches":1,"cost":2\}/);

      posts.reset();
      const query = '{ posts(limit: 2) { id title } }';
      // GraphiQL loads the schema (an introspection query through the gateway) and its editors
      // after the page: click once both are there. Generous timeouts: the 9 MB bundle parses slowly
      // on a loaded 2-core machine (about 4 s when idle).
      const schemaLoaded = page.waitForResponse(
        (response) => response.request().method() === 'POST' && (response.request().postData() ?? '').includes('__schema'),
        { timeout: 60_000 },
      );
      await page.goto(`${gw.url}?query=${encodeURIComponent(query)}`, { waitUntil: 'load', timeout: 60_000 });
      assert.equal((await schemaLoaded).status(), 200);
      await page.waitForFunction(() => /posts\(limit/.test(document.querySelector('.graphiql-query-editor')?.textContent ?? ''), {
        timeout: 60_000,
        polling: 50,
      });
      await page.click('.graphiql-execute-button');
      // The result editor renders spaces as no-break spaces: compare with white space collapsed.
      await page.waitForFunction(() => /Title\s2/.test(document.querySelector('.result-window')?.textContent ?? ''), {
        timeout: 60_000,
        polling: 50,
      });
      const shown = await page.$eval('.result-window', (element) => element.textContent ?? '');
      assert.match(shown.replace(/\s+/g, ''), /"title":"Title1".*"title":"Title2"/);
      assert.equal(posts.count('GET /posts'), 1, 'the query reached the source through the gateway, once');
      assert.deepEqual(blocked, [], 'GraphiQL asked for nothing outside 127.0.0.1');
    } finally {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    }
  });
});
