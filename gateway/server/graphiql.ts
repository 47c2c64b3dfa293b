import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { GraphiQLOptions } from 'graphql-yoga';
import type { Answers } from './answers.js';
import type { RouteHandler } from './routes.js';

/**
 * GraphiQL without the internet (docs/hardening.md): the
 * page yoga shows for a browser's `GET /graphql` loads its script, styles and editor workers from
 * this gateway's `/graphiql/*`, taken from the installed `@graphql-yoga/render-graphiql` package
 * (which bundles GraphiQL and its dependencies as strings). The page itself holds no URL of another
 * host. The bundle (9 MB) is read on the first request for an asset, not at start-up. In the server
 * only when `[gateway] graphiql = true`.
 */
import { GRAPHIQL_ASSET_PREFIX } from '../config/own-paths.js';
export { GRAPHIQL_ASSET_PREFIX };

interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

interface GraphiQLBundle {
  readonly css: string;
  readonly js: string;
  readonly favicon: string;
  readonly editorWorkerService: string;
  readonly jsonWorker: string;
  readonly graphqlWorker: string;
}

const WORKERS: Readonly<Record<string, string>> = {
  editorWorkerService: `${GRAPHIQL_ASSET_PREFIX}editor.worker.js`,
  json: `${GRAPHIQL_ASSET_PREFIX}json.worker.js`,
  graphql: `${GRAPHIQL_ASSET_PREFIX}graphql.worker.js`,
};

/** The GraphiQL page, for yoga's `renderGraphiQL` option. */
export function renderGraphiQLPage(options: GraphiQLOptions): string {
  // `<` escaped so that no option value can close the script element.
  const settings = JSON.stringify(options ?? {}).replace(/</g, '\\u003c');
  const title = String(options?.title ?? 'GraphiQL').replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${title}</title>
    <link rel="icon" href="${GRAPHIQL_ASSET_PREFIX}favicon.ico" />
    <link rel="stylesheet" href="${GRAPHIQL_ASSET_PREFIX}graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run GraphiQL.</noscript>
    <div id="root"></div>
    <script>
      self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (_moduleId, label) { return ${JSON.stringify(WORKERS)}[label]; } };
    </script>
    <script src="${GRAPHIQL_ASSET_PREFIX}graphiql.js"></script>
    <script>
      YogaGraphiQL.renderYogaGraphiQL(window.document.querySelector('#root'), ${settings});
    </script>
  </body>
</html>
`;
}

/** Serves `GET /graphiql/<asset>` (the route of every path under GRAPHIQL_ASSET_PREFIX); 404 for anything else. */
export function createGraphiQLAssets(answers: Answers): RouteHandler {
  let assets: ReadonlyMap<string, Asset> | undefined;
  return (request, res) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return answers.write(res, answers.notFound());
    assets ??= loadAssets();
    const asset = assets.get(request.path.slice(GRAPHIQL_ASSET_PREFIX.length));
    if (!asset) return answers.write(res, answers.notFound());
    answers.write(res, answers.asset(asset.type, asset.body));
  };
}

function loadAssets(): ReadonlyMap<string, Asset> {
  const require = createRequire(import.meta.url);
  // The package exports only its page renderer; its bundle sits beside it as graphiql.js.
  const bundle = require(join(dirname(require.resolve('@graphql-yoga/render-graphiql')), 'graphiql.js')) as GraphiQLBundle;
  const js = 'text/javascript; charset=utf-8';
  const favicon = /^data:([^;]+);base64,(.*)$/.exec(bundle.favicon);
  return new Map<string, Asset>([
    ['graphiql.js', { type: js, body: Buffer.from(bundle.js) }],
    ['graphiql.css', { type: 'text/css; charset=utf-8', body: Buffer.from(bundle.css) }],
    ['editor.worker.js', { type: js, body: Buffer.from(bundle.editorWorkerService) }],
    ['json.worker.js', { type: js, body: Buffer.from(bundle.jsonWorker) }],
    ['graphql.worker.js', { type: js, body: Buffer.from(bundle.graphqlWorker) }],
    ['favicon.ico', { type: favicon?.[1] ?? 'image/x-icon', body: Buffer.from(favicon?.[2] ?? '', 'base64') }],
  ]);
}
