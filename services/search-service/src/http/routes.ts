import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
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

/** The paths of search and add (the fast path matches them and names them in its metrics). */
export const SEARCH_PATH = '/v2/:cid/search/:format';
export const DOCS_PATH = '/v2/:cid/docs';

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

/** A successful answer: 200 with this body (a failure is thrown, as a ServiceError). */
export interface Reply {
  contentType: string;
  body: string | Buffer;
  /** Cache-Control: no-store (search and status answers, which change with every write) */
  noStore: boolean;
}

const OK: Reply = { contentType: 'text/plain; charset=utf-8', body: 'OK', noStore: false };

function formatted(format: 'xml' | 'json', body: string | Buffer): Reply {
  const contentType =
    format === 'json' ? 'application/json; charset=utf-8' : 'application/xml; charset=utf-8';
  return { contentType, body, noStore: true };
}

/** Writes a 200 answer with node's own calls (the Express routes and the fast path alike). */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : reply.body;
  const headers: OutgoingHttpHeaders = {
    'Content-Type': reply.contentType,
    'Content-Length': body.length,
  };
  if (reply.noStore) headers['Cache-Control'] = 'no-store';
  res.writeHead(200, headers);
  res.end(body);
}

/** An operation of the spec, given its {cid} and its decoded parameters. */
export type Operation = (
  cid: string,
  params: RequestParams,
  extra: OperationExtra,
) => Promise<Reply>;

export interface OperationExtra {
  /** the {format} path segment (search and status) */
  format?: string;
  /** aborts when the client goes away (a search waiting for its collection's share leaves) */
  gone?: AbortSignal;
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
): Operation {
  return async (cid, params) => {
    const { collection } = await checkRequest(deps, operation, { cid, params });
    const input = paramsOf(params);
    await deps.gate.track(collection.id, () => run(deps, collection.id, input));
    return OK;
  };
}

/** add (POST /v2/{cid}/docs): the fast path's and the Express route's. */
export function addOperation(deps: RouteDeps): Operation {
  return write(deps, 'add', addParams, addDocument);
}

/** search (GET /v2/{cid}/search/{format}): the fast path's and the Express route's. */
export function searchOperation(deps: RouteDeps): Operation {
  return async (cid, params, { format: formatSegment, gone }) => {
    const { collection, format } = await checkRequest(deps, 'search', {
      cid,
      params,
      format: String(formatSegment),
    });
    const query = checkSearchParams(searchParams(params));
    const highlight = checkHighlightParams(highlightParams(params));
    const result = await deps.gate.run(
      collection.id,
      () => searchDocuments(deps, collection.id, query, highlight),
      gone,
    );
    return formatted(format, format === 'json' ? searchJson(result) : searchXml(result));
  };
}

/**
 * An AbortSignal that aborts when the response closes before it finished (its client went
 * away). A close after the answer was sent aborts nothing: abort() builds a DOMException,
 * 0.8 % of the service thread's time when every search paid for it.
 */
export function goneSignal(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** An operation as an Express handler: {cid} and {format} from the route, the params readParams decoded. */
function handler(operation: Operation, o: { signal?: boolean } = {}): Handler {
  return async (req, res) => {
    const format = req.params.format === undefined ? undefined : String(req.params.format);
    const gone = o.signal ? goneSignal(res) : undefined;
    writeReply(res, await operation(cidOf(req), formOf(req), { format, gone }));
  };
}

/** add, update, field update, delete, status: mounted under the path of {base_url}. */
export function indexRoutes(deps: RouteDeps): Router {
  const router = Router();
  const body = readParams(deps.maxBodyBytes);

  route(
    router,
    DOCS_PATH,
    {
      POST: handler(addOperation(deps)),
      PUT: handler(write(deps, 'update', updateParams, updateDocument)),
      DELETE: handler(write(deps, 'delete', deleteParams, deleteDocument)),
    },
    body,
  );

  route(
    router,
    '/v2/:cid/docs/fields',
    { PUT: handler(write(deps, 'fieldUpdate', fieldUpdateParams, updateField)) },
    body,
  );

  route(
    router,
    '/v2/:cid/status/:format',
    {
      GET: handler(async (cid, params, { format: formatSegment }) => {
        const { collection, format } = await checkRequest(deps, 'status', {
          cid,
          params,
          format: String(formatSegment),
        });
        const status = await collectionStatus(deps, collection.id);
        return formatted(format, format === 'json' ? statusJson(status) : statusXml(status));
      }),
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
    SEARCH_PATH,
    { GET: handler(searchOperation(deps), { signal: true }) },
    readParams(deps.maxBodyBytes),
  );
  return router;
}
