/**
 * Runs examples/federation: the catalog REST service (:4021), gqlgw serving the products subgraph
 * over it (:4020), the reviews subgraph (:4022), and an Apollo Gateway over the composed supergraph
 * (http://127.0.0.1:4023/), until SIGINT or SIGTERM.
 *   npm run build && node dist/examples/federation/start.js
 */
import { fileURLToPath } from 'node:url';
import { startGateway } from '../../gateway/server/start.js';
import { startCatalogService } from './catalog.js';
import { startReviewsSubgraph } from './reviews.js';
import { composeSupergraph, startApolloGateway } from './router.js';

const configPath = fileURLToPath(new URL('../../../examples/federation/gateway.toml', import.meta.url));
const SAMPLE = '{ reviews(first: 50) { body product { upc name priceCents } } }';

async function main(): Promise<void> {
  const catalog = await startCatalogService({ port: Number(process.env.FEDERATION_CATALOG_PORT ?? 4021) });
  const products = await startGateway({ configPath });
  const reviews = await startReviewsSubgraph({ port: 4022 });
  const supergraphSdl = await composeSupergraph([
    { name: 'products', url: products.url },
    { name: 'reviews', url: reviews.url },
  ]);
  const router = await startApolloGateway({ supergraphSdl, port: 4023 });
  process.stdout.write(
    `catalog ${catalog.url}\nproducts subgraph (gqlgw) ${products.url}\nreviews subgraph ${reviews.url}\nApollo Gateway ${router.url}\ntry:\n  curl -s ${router.url} -H 'content-type: application/json' -d '${JSON.stringify({ query: SAMPLE })}'\n`,
  );
  const stop = (): void => {
    void Promise.allSettled([router.close(), reviews.close(), products.close(), catalog.close()]).then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
