import { Router, type Request, type RequestHandler, type Response } from 'express';
import { allowMethods } from '@hub/service-kit';
import { addDocument } from '../domain/add-document';
import { deleteDocument } from '../domain/delete-document';
import type { DomainDeps } from '../domain/deps';
import { checkHighlightParams, checkSearchParams, searchDocuments } from '../domain/search';
import { collectionStatus } from '../domain/status';
import { updateDocument } from '../domain/update-document';
import { updateField } from '../domain/update-field';
import type { CollectionDirectory } from '../store/collections';
import { formOf, readParams } from './body';
import type { RequestParams } from './params';
import type { CollectionGate } from './collection-gate';
import type { CallLimiter } from './call-limiter';
import { HTTP_ERRORS } from './errors';
import { searchJson, searchXml, statusJson, statusXml } from './render';
import {
  addParams,
  checkRequest,
  deleteParams,
  fieldUpdateParams,
  highlightParams,
  searchParams,
  updateParams,
} from './request-checks';

export interface RouteDeps extends DomainDeps {
  collections: CollectionDirectory;
  callLimiter: CallLimiter;
  /** counts each collection's operations in flight and caps its searches at its share */
  gate: CollectionGate;
  maxBodyBytes: number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * One path with its handlers per method: another method answers 405 with an Allow header
 * (before the body is read); HEAD is answered like GET.
 */
function route(
  router: Router,
  path: string,
  handlers: Partial<Record<Method, Handler>>,
  body: RequestHandler[],
) {
  const methods = Object.keys(handlers);
  const allowed = handlers.GET ? [...methods, 'HEAD'] : methods;
  const handlerOf = (req: Request) =>
    handlers[(req.method === 'HEAD' ? 'GET' : req.method) as Method]!;
  router
    .route(path)
    .all(allowMethods(allowed, HTTP_ERRORS.methodNotAllowed))
    .all(...body, async (req: Request, res: Response) => {
      await handlerOf(req)(req, res);
    });
}

/** The {cid} path segment. */
function cidOf(req: Request): string {
  return String(req.params.cid);
}

const PLAIN = 'text/plain; charset=utf-8';

function ok(res: Response): void {
  res.status(200).type(PLAIN).send('OK');
}

function sendAs(res: Response, format: 'xml' | 'json', body: string | Buffer): void {
  res
    .status(200)
    .set('Cache-Control', 'no-store')
    .type(format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8')
    .send(body);
}

/**
 * A document write (add, update, field update, delete): steps 1–4 of the checks, then the
 * operation's parameters (`paramsOf`), the write counted in the collection's gate, and 200 OK.
 */
function write<Input>(
  deps: RouteDeps,
  operation: 'add' | 'update' | 'fieldUpdate' | 'delete',
  paramsOf: (params: RequestParams) => Input,
  run: (deps: DomainDeps, collectionId: string, input: Input) => Promise<void>,
): Handler {
  return async (req, res) => {
    const params = formOf(req);
    const { collection } = await checkRequest(deps, operation, { cid: cidOf(req), params });
    const input = paramsOf(params);
    await deps.gate.track(collection.id, () => run(deps, collection.id, input));
    ok(res);
  };
}

/** add, update, field update, delete, status: mounted under the path of {base_url}. */
export function indexRoutes(deps: RouteDeps): Router {
  const router = Router();
  const body = readParams(deps.maxBodyBytes);

  route(
    router,
    '/v2/:cid/docs',
    {
      POST: write(deps, 'add', addParams, addDocument),
      PUT: write(deps, 'update', updateParams, updateDocument),
      DELETE: write(deps, 'delete', deleteParams, deleteDocument),
    },
    body,
  );

  route(
    router,
    '/v2/:cid/docs/fields',
    { PUT: write(deps, 'fieldUpdate', fieldUpdateParams, updateField) },
    body,
  );

  route(
    router,
    '/v2/:cid/status/:format',
    {
      GET: async (req, res) => {
        const { collection, format } = await checkRequest(deps, 'status', {
          cid: cidOf(req),
          params: formOf(req),
          format: String(req.params.format),
        });
        const status = await collectionStatus(deps, collection.id);
        sendAs(res, format, format === 'json' ? statusJson(status) : statusXml(status));
      },
    },
    body,
  );
  return router;
}

/** search: mounted under the path of {search_url}. */
export function searchRoutes(deps: RouteDeps): Router {
  const router = Router();
  route(
    router,
    '/v2/:cid/search/:format',
    {
      GET: async (req, res) => {
        const params = formOf(req);
        const { collection, format } = await checkRequest(deps, 'search', {
          cid: cidOf(req),
          params,
          format: String(req.params.format),
        });
        const query = checkSearchParams(searchParams(params));
        const highlight = checkHighlightParams(highlightParams(params));
        // a search waiting for its collection's share leaves the queue when its client goes away
        // (a close after the answer was sent aborts nothing: abort() builds a DOMException,
        // 0.8 % of the service thread's time when every search paid for it)
        const gone = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) gone.abort();
        });
        const result = await deps.gate.run(
          collection.id,
          () => searchDocuments(deps, collection.id, query, highlight),
          gone.signal,
        );
        sendAs(res, format, format === 'json' ? searchJson(result) : searchXml(result));
      },
    },
    readParams(deps.maxBodyBytes),
  );
  return router;
}
