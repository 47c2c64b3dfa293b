/**
 * A real identity provider for auth tests: key pairs generated with jose (RS256, ES256, ...), their
 * JSON Web Key Set (written to a file, or served by a counting HTTP server on 127.0.0.1 whose keys
 * can be rotated), and real signed tokens.
 *
 *   const rsa = await makeKey('RS256', 'rsa-1');
 *   const idp = await startJwksServer([rsa]);         // idp.url, idp.fetches, idp.setKeys([...])
 *   const token = await mintToken(rsa, { sub: 'alice', scope: 'read' }, { issuer, audience });
 */
import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { listenLocal } from './listen.js';

export interface TestKey {
  readonly alg: string;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  /** The public key as a JWK with `kid`, `alg` and `use`. */
  readonly jwk: JWK;
}

export async function makeKey(alg: 'RS256' | 'ES256' | 'PS256' | 'EdDSA', kid: string): Promise<TestKey> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, jwk };
}

export function keySet(keys: readonly TestKey[]): { keys: JWK[] } {
  return { keys: keys.map((k) => k.jwk) };
}

export interface TokenOptions {
  readonly issuer: string;
  readonly audience: string;
  /** Seconds from now; default 300. */
  readonly expiresInS?: number;
  /** Seconds from now for `nbf`; absent: no nbf. */
  readonly notBeforeInS?: number;
  /** The `kid` header; default the key's. */
  readonly kid?: string;
}

/** A signed JWT with these claims (plus iss, aud, iat, exp). */
export async function mintToken(key: TestKey, claims: JWTPayload, options: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresInS ?? 300));
  if (options.notBeforeInS !== undefined) jwt.setNotBefore(now + options.notBeforeInS);
  return jwt.sign(key.privateKey);
}

/** An unsigned token (`alg: none`), as an attacker would write one. */
export function unsignedToken(claims: JWTPayload): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`;
}

export interface JwksServer {
  /** The key set's URL, http://127.0.0.1:PORT/jwks.json */
  readonly url: string;
  /** Key-set requests received. */
  readonly fetches: number;
  setKeys(keys: readonly TestKey[]): void;
  close(): Promise<void>;
}

/** Serves a key set over HTTP on 127.0.0.1 and counts its fetches. */
export async function startJwksServer(initial: readonly TestKey[]): Promise<JwksServer> {
  let body = JSON.stringify(keySet(initial));
  let fetches = 0;
  const server = http.createServer((req, res) => {
    if (req.url !== '/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    fetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  const port = await listenLocal(server);
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    get fetches() {
      return fetches;
    },
    setKeys(keys) {
      body = JSON.stringify(keySet(keys));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
