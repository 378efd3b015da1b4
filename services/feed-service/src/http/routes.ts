import type { ServerResponse } from 'node:http';
import bodyParser from 'body-parser';
import { Router, type Request, type RequestHandler } from 'express';
import { FEED_ERRORS } from '@hub/contracts';
import { allowMethods, ServiceError } from '@hub/service-kit';
import { deleteItem } from '../domain/delete-item';
import { publishItem } from '../domain/publish-item';
import { itemLocation } from '../domain/published-item';
import { readFeed } from '../domain/read-feed';
import { updateItem } from '../domain/update-item';
import { insufficientScope, WRITE_SCOPE } from './auth';
import type { HttpContext } from './context';
import { checkRead, checkToken, rawQuery } from './read-checks';

/** Largest publishing body accepted (a 20,000-character Korean description is ~60 KB). */
export const MAX_BODY = '256kb';
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

export const ROUTES = {
  contents: '/hub/contents',
  category: '/hub/categories/:category_code/contents',
  item: '/hub/contents/:id',
} as const;

function sendJson(
  res: ServerResponse,
  status: number,
  contentType: string,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const body = Buffer.from(JSON.stringify(value), 'utf8');
  res.writeHead(status, {
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(body.length),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}

/** The read API, the publishing API and a 405 (with Allow) for every other method. */
export function feedRoutes(context: HttpContext): Router {
  const router = Router({ caseSensitive: true });
  const { domain, negotiator, responder } = context;
  const jsonType = negotiator.mediaTypes.json;
  const allow = (methods: string[]) => allowMethods(methods, FEED_ERRORS.methodNotAllowed);

  const read =
    (category: (req: Request) => string | undefined): RequestHandler =>
    async (req, res) => {
      const target = checkRead(context, req, rawQuery(req.url), category(req), domain.clock());
      if (target instanceof ServiceError) throw target;
      const representation = await readFeed(domain, target.feed, target.format);
      responder.write(req, res, representation, domain.clock());
    };

  /** Publishing needs a valid token with the hub:write scope (403 without it). */
  const writer: RequestHandler = (req, _res, next) => {
    const principal = checkToken(context, req, rawQuery(req.url), domain.clock());
    if (principal instanceof ServiceError) throw principal;
    if (!principal.scopes.has(WRITE_SCOPE)) throw insufficientScope(WRITE_SCOPE);
    next();
  };
  const jsonBody: RequestHandler[] = [
    (req, _res, next) => {
      if (!JSON_TYPE.test(req.headers['content-type'] ?? ''))
        throw new ServiceError(FEED_ERRORS.unsupportedMediaType);
      next();
    },
    bodyParser.json({ limit: MAX_BODY, strict: false, type: () => true }),
  ];

  router.all(ROUTES.contents, allow(['GET', 'HEAD', 'POST']));
  router.get(
    ROUTES.contents,
    read(() => undefined),
  );
  router.post(ROUTES.contents, writer, ...jsonBody, async (req, res) => {
    const { status, item } = await publishItem(domain, req.body);
    sendJson(res, status, jsonType, item, { Location: itemLocation(domain, item.id) });
  });

  router.all(ROUTES.category, allow(['GET', 'HEAD']));
  router.get(
    ROUTES.category,
    read((req) => String(req.params.category_code)),
  );

  router.all(ROUTES.item, allow(['PUT', 'DELETE']));
  router.put(ROUTES.item, writer, ...jsonBody, async (req, res) => {
    const item = await updateItem(domain, String(req.params.id), req.body);
    sendJson(res, 200, jsonType, item);
  });
  router.delete(ROUTES.item, writer, async (req, res) => {
    await deleteItem(domain, String(req.params.id));
    res.writeHead(204, { 'Cache-Control': 'no-store' });
    res.end();
  });
  return router;
}
