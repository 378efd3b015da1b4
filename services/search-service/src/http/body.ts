import bodyParser from 'body-parser';
import type { Request, RequestHandler } from 'express';
import { ServiceError } from '@hub/service-kit';
import { HTTP_ERRORS } from './errors';
import { RequestParams } from './params';

const FORMS = new WeakMap<Request, RequestParams>();

/** The parameters readParams decoded for this request. */
export function formOf(req: Request): RequestParams {
  const form = FORMS.get(req);
  if (!form) throw new Error('readParams did not run for this request');
  return form;
}

const FORM = 'application/x-www-form-urlencoded';

/** The raw query string of a request URL (never decoded by Express). */
export function rawQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** Whether a Content-Type header names the form type (its parameters aside). */
export function isFormType(header: string | undefined): boolean {
  return !header || isForm(header.split(';')[0]!);
}

function isForm(type: string): boolean {
  return type.trim().toLowerCase() === FORM;
}

/**
 * Whether a body of this Content-Type carries parameters: a form (or no Content-Type at all)
 * does; its charset must be UTF-8 (no charset means UTF-8) or every body value is "invalid
 * encoding". Any other type → 415.
 */
export function formCharsetIsUtf8(header: string | undefined): boolean {
  if (!header) return true;
  const [type, ...parameters] = header.split(';');
  if (!isForm(type!)) throw new ServiceError(HTTP_ERRORS.unsupportedMediaType);
  for (const parameter of parameters) {
    const eq = parameter.indexOf('=');
    if (eq < 0 || parameter.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    return charset === 'utf-8' || charset === 'utf8';
  }
  return true;
}

/**
 * Reads the body as bytes (at most maxBodyBytes, gzip/deflate inflated) and decodes the
 * parameters of query string and body into formOf(req) (see params.ts for the rules).
 */
export function readParams(maxBodyBytes: number): RequestHandler[] {
  const raw = bodyParser.raw({ type: () => true, limit: maxBodyBytes, inflate: true });
  const decode: RequestHandler = (req, _res, next) => {
    const body = Buffer.isBuffer(req.body) && req.body.length > 0 ? req.body : null;
    const utf8 = body ? formCharsetIsUtf8(req.headers['content-type']) : true;
    FORMS.set(req, RequestParams.from(rawQuery(req.originalUrl ?? req.url), body, utf8));
    next();
  };
  return [raw, decode];
}
