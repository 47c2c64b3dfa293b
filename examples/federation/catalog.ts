/**
 * The REST service behind the products subgraph (examples/federation/README.md): one product by its
 * UPC, many at once by `?upcs=a,b`, and the top products. It keeps the request lines it answered,
 * so a test can see what the gateway sent.
 */
import { startService, type BlogRoutes, type RunningService } from '../blog/http.js';
import { CATALOG } from './data.js';

export interface CatalogService extends RunningService {
  /** Every request answered, as `/path?query`, in order. */
  readonly calls: string[];
}

export async function startCatalogService(options: { port?: number; host?: string } = {}): Promise<CatalogService> {
  const calls: string[] = [];
  const log = (path: string, query: URLSearchParams): void => {
    const q = query.toString();
    calls.push(q ? `${path}?${decodeURIComponent(q)}` : path);
  };
  const routes: BlogRoutes = [
    [
      '/products',
      ({ query }) => {
        log('/products', query);
        const upcs = (query.get('upcs') ?? '').split(',').filter((u) => u !== '');
        return { json: CATALOG.filter((p) => upcs.includes(p.upc)) };
      },
    ],
    [
      '/products/top',
      ({ query }) => {
        log('/products/top', query);
        return { json: CATALOG.slice(0, Math.max(0, Number(query.get('first') ?? 5))) };
      },
    ],
    [
      '/products/:upc',
      ({ params, query }) => {
        log(`/products/${params.upc}`, query);
        const found = CATALOG.find((p) => p.upc === params.upc);
        return found ? { json: found } : { status: 404, json: { message: 'no such product' } };
      },
    ],
  ];
  const service = await startService(routes, options.host ?? '127.0.0.1', options.port ?? 4021);
  return Object.assign(service, { calls });
}
