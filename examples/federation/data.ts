/** The example's catalog: 60 products, and 50 reviews each of a different product. */
export interface CatalogProduct {
  readonly upc: string;
  readonly name: string;
  readonly price_cents: number;
  readonly in_stock: boolean;
}

export const CATALOG: readonly CatalogProduct[] = Array.from({ length: 60 }, (_, i) => ({
  upc: `upc-${i + 1}`,
  name: `Product ${i + 1}`,
  price_cents: 100 * (i + 1) + 99,
  in_stock: i % 3 !== 0,
}));

export interface Review {
  readonly id: string;
  readonly body: string;
  readonly productUpc: string;
}

export const REVIEWS: readonly Review[] = Array.from({ length: 50 }, (_, i) => ({
  id: `r${i + 1}`,
  body: `Review ${i + 1}`,
  // 50 distinct products, not in catalog order
  productUpc: `upc-${((i * 7) % 50) + 1}`,
}));
